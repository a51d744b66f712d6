// Type declarations for the two emulators that ship without types (only what this project calls).

declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB directory; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}

declare module 's3rver' {
  import type { Server } from 'node:http';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: unknown[] }[];
  }
  export default class S3rver {
    constructor(options?: S3rverOptions);
    httpServer?: Server;
    /** Its FilesystemStore (local/s3-store.ts replaces its write methods). */
    store: import('./s3-store').FilesystemStore;
    run(): Promise<{ address: string; port: number }>;
    /** Serves on a new HTTP server listening where `args` say (a port, or a unix socket path). */
    listen(...args: unknown[]): Promise<Server>;
    close(): Promise<void>;
  }
}

declare module 's3rver/lib/models/account.js' {
  /** s3rver's accounts: a request's SigV4 key id must be registered here (the front checks its signature). */
  interface AWSAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
    revokeAccessKey(accessKeyId: string): void;
  }
  const accounts: { DUMMY_ACCOUNT: AWSAccount };
  export default accounts;
}
