/** live or test: what a request made with a live or a test key may see and create. */
export type Mode = 'live' | 'test';

/**
 * The verified caller the gateway forwards with every request. Services trust
 * it and never re-check the API key.
 */
export interface RequestContext {
  requestId: string;
  keyId: string;
  mode: Mode;
  permissions: string[];
  domainRestrictions: string[];
}
