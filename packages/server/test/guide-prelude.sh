# Sourced before each step of a guide by guides.test.ts: a curl that keeps its answers, and the variables,
# functions and folder the steps before left. On exit the step's own are saved for the next step.
set -eo pipefail

# curl as a reader runs it, plus: the answer is kept in $GUIDE_TEST_ANSWERS for the test, and a 4xx or 5xx
# that the step does not announce ($GUIDE_TEST_EXPECT, from "# expected error: <status>") fails the step.
curl() {
  local format='' args=() out rc=0 status
  while (($#)); do
    case $1 in
      -w|--write-out) format=$2; shift 2 ;;
      --write-out=*) format=${1#*=}; shift ;;
      *) args+=("$1"); shift ;;
    esac
  done
  out=$(command curl "${args[@]}" -w "${format}__GUIDE_STATUS__%{http_code}") || rc=$?
  status=${out##*__GUIDE_STATUS__}
  out=${out%__GUIDE_STATUS__*}
  if [[ -n $format ]]; then printf '%s' "$out"; else printf '%s\n' "$out"; fi
  printf '%s\n%s\n%s' "$status" "${args[*]//$'\n'/ }" "$out" > "$GUIDE_TEST_ANSWERS/${EPOCHREALTIME/./}-$BASHPID"
  if [[ $status == [45]* && " $GUIDE_TEST_EXPECT " != *" $status "* ]]; then
    echo "guide-test: curl ${args[*]} answered $status, which the step does not announce (# expected error: $status …): $out" >&2
    return 22
  fi
  return $rc
}

__guide_save() {
  local names
  names=$(compgen -v | grep -Ev '^(BASH.*|SHELLOPTS|EUID|UID|PPID|FUNCNAME|GROUPS|PIPESTATUS|RANDOM|SRANDOM|SECONDS|LINENO|HISTCMD|EPOCHSECONDS|EPOCHREALTIME|OPTIND|OPTARG|OPTERR|_|SHLVL|PWD|OLDPWD|DIRSTACK|IFS|PS4|COLUMNS|LINES|GUIDE_TEST_.*)$' || true)
  {
    # shellcheck disable=SC2086
    declare -p $names 2>/dev/null | grep -Ev '^declare -[a-zA-Z]*r' || true
    declare -f
    printf 'cd %q\nOLDPWD=%q\n' "$PWD" "$OLDPWD"
  } > "$GUIDE_TEST_STATE.next"
}

if [[ -f $GUIDE_TEST_STATE ]]; then source "$GUIDE_TEST_STATE"; fi
trap __guide_save EXIT
