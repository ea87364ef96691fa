/** s3rver ships no types; these are the calls the sync tests and bench use. */
declare module 's3rver' {
  export default class S3rver {
    constructor(options: {port?: number; address?: string; silent?: boolean; directory: string})
    run(): Promise<{address: string; port: number}>
    close(): Promise<void>
  }
}
