/** Maps each request-reply subject of a service to its payload and reply, so a mismatch fails to compile. */
export type RpcMap<M> = { [S in keyof M]: { payload: unknown; reply: unknown } };
