/** `{meta: {code: 200, hasMore}, [name]: items}` */
export function pageBody<T>(name: string, items: T[], hasMore: boolean) {
  return {meta: {code: 200, hasMore}, [name]: items}
}
