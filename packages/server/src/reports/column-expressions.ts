/**
 * How a report's columns become its output columns. Columns are read in position order; a column whose
 * `arithmetic_operator` is set is combined with the next one, so a run of such columns forms one
 * computed output column ("expression") named by its first column's alias. A column without an
 * operator is an expression of its own. Parentheses group operands inside one expression.
 */

export interface Indexed<T> {
  readonly column: T;
  /** The column's index in the request's `fields`, for error paths. */
  readonly index: number;
}

/**
 * Columns in position order, each with its request index (ties keep request order).
 * @example inPositionOrder([{ position: 2 }, { position: 1 }]).map((c) => c.index) // [1, 0]
 */
export function inPositionOrder<T extends { position: number }>(columns: readonly T[]): Indexed<T>[] {
  return columns.map((column, index) => ({ column, index })).sort((a, b) => a.column.position - b.column.position || a.index - b.index);
}

/**
 * Splits ordered columns into expressions. A trailing operator on the last column has nothing to
 * combine with; validation refuses it, and here it simply ends the last expression.
 * @example splitIntoExpressions(inPositionOrder(report.fields)).map((e) => e.length) // [2, 1] for a + b, c
 */
export function splitIntoExpressions<T extends { arithmetic_operator?: string | null | undefined }>(ordered: readonly Indexed<T>[]): Indexed<T>[][] {
  const expressions: Indexed<T>[][] = [];
  let current: Indexed<T>[] = [];
  for (const item of ordered) {
    current.push(item);
    if (!item.column.arithmetic_operator) {
      expressions.push(current);
      current = [];
    }
  }
  if (current.length > 0) expressions.push(current);
  return expressions;
}
