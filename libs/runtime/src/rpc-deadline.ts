import { performance } from 'node:perf_hooks';
import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import { DomainError, ErrorCode } from '@mailroom/errors';
import type { MsgHdrs } from 'nats';

/**
 * How long the caller of a request waits for its answer, in milliseconds
 * from when it sent it: a budget, not a time of day, so that the clocks of
 * the caller's and the service's hosts need not agree. The service counts
 * it from when it reads the request, on its own monotonic clock; reading
 * comes after sending, so its deadline falls after the caller's by the
 * message's transit (under a millisecond, unless the service's event loop
 * is too busy to read its socket), never before it: nothing a caller still
 * waits for is dropped, and what the caller gave up on may still slip
 * through by that much.
 */
export const RPC_BUDGET_HEADER = 'x-rpc-budget-ms';

/** The most a budget may say, in ms (a day): a larger number is not one this code sent, and is ignored. */
const LONGEST_BUDGET_MS = 86_400_000;

/** Puts the caller's budget on a request it sends. */
export function setRpcBudget(headers: MsgHdrs, budgetMs: number): void {
  headers.set(RPC_BUDGET_HEADER, String(Math.max(0, Math.round(budgetMs))));
}

/** The moment, on this process's monotonic clock, after which the caller of a request no longer waits for its answer. */
export class RpcDeadline {
  private constructor(private readonly at: number) {}

  /**
   * The deadline of a request read at `receivedAt`, from its headers; none
   * for a request without a budget (a gateway of an earlier release during a
   * rolling deploy, an internal caller) or with one that is no whole number
   * of milliseconds up to a day: such a request is handled as if its caller
   * waited for ever, as every request was before budgets were sent.
   */
  static fromHeaders(headers: MsgHdrs | undefined, receivedAt = performance.now()): RpcDeadline | undefined {
    const value = headers?.get(RPC_BUDGET_HEADER);
    if (!value || !/^\d{1,8}$/.test(value) || Number(value) > LONGEST_BUDGET_MS) return undefined;
    return new RpcDeadline(receivedAt + Number(value));
  }

  /** Whether the caller has stopped waiting by `now`. */
  passed(now = performance.now()): boolean {
    return now >= this.at;
  }
}

/**
 * The answer to a request dropped because its caller had stopped waiting:
 * nobody reads it (the caller has answered 503 already), but it says in the
 * logs what happened.
 */
export function callerStoppedWaiting(): DomainError {
  return new DomainError(ErrorCode.ServiceUnavailable, 'The caller stopped waiting for this request (RPC_TIMEOUT_MS) before it was written; nothing was stored.');
}

/**
 * The RpcDeadline of the request a message handler is handling, read when
 * the handler is called (in the same turn as the message was read), or
 * undefined for a request without a budget.
 */
export const CallerDeadline = createParamDecorator((_data: unknown, context: ExecutionContext): RpcDeadline | undefined =>
  RpcDeadline.fromHeaders(context.switchToRpc().getContext<NatsContext>().getHeaders() as MsgHdrs | undefined),
);
