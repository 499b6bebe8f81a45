import { Type, type TSchema } from 'typebox';

/**
 * The spec's page object, the shape of a Spring Data page (`content`, `totalElements`, …): the saved
 * reports list and the disputes list answer it. Page numbers start at 0; the requests take no sort, so
 * `sort` reports an unsorted request, as a Spring page does.
 */
export interface PageSort {
  empty: boolean;
  sorted: boolean;
  unsorted: boolean;
}

export interface Page<T> {
  content: T[];
  pageable: { sort: PageSort; offset: number; pageSize: number; pageNumber: number; paged: boolean; unpaged: boolean };
  last: boolean;
  totalPages: number;
  totalElements: number;
  first: boolean;
  size: number;
  number: number;
  sort: PageSort;
  numberOfElements: number;
  empty: boolean;
}

/**
 * One page of `content` out of `totalElements`, as asked for by `page` and `size`.
 * @example springPage(rows.map(view), total, { page: 0, size: 20 })
 */
export function springPage<T>(content: T[], totalElements: number, query: { page: number; size: number }): Page<T> {
  const totalPages = Math.ceil(totalElements / query.size);
  const sort: PageSort = { empty: true, sorted: false, unsorted: true };
  return {
    content,
    pageable: { sort: { ...sort }, offset: query.page * query.size, pageSize: query.size, pageNumber: query.page, paged: true, unpaged: false },
    last: query.page + 1 >= totalPages,
    totalPages,
    totalElements,
    first: query.page === 0,
    size: query.size,
    number: query.page,
    sort,
    numberOfElements: content.length,
    empty: content.length === 0,
  };
}

const Sort = Type.Object({ empty: Type.Boolean(), sorted: Type.Boolean(), unsorted: Type.Boolean() });

/**
 * The page object's schema around `item`, with `extra` properties beside the page's own.
 * @example PageSchema(ReportResponse, 'ReportPage')
 */
export function PageSchema<T extends TSchema, E extends Record<string, TSchema> = Record<never, TSchema>>(item: T, title: string, extra?: E) {
  return Type.Object(
    {
      ...(extra as E),
      content: Type.Array(item),
      pageable: Type.Object({
        sort: Sort,
        offset: Type.Integer(),
        pageSize: Type.Integer(),
        pageNumber: Type.Integer(),
        paged: Type.Boolean(),
        unpaged: Type.Boolean(),
      }),
      last: Type.Boolean(),
      totalPages: Type.Integer(),
      totalElements: Type.Integer(),
      first: Type.Boolean(),
      size: Type.Integer(),
      number: Type.Integer(),
      sort: Sort,
      numberOfElements: Type.Integer(),
      empty: Type.Boolean(),
    },
    { title },
  );
}
