import { headers as natsHeaders } from 'nats';
import { RPC_BUDGET_HEADER, RpcDeadline, setRpcBudget } from './rpc-deadline';

const withBudget = (value: string) => {
  const headers = natsHeaders();
  headers.set(RPC_BUDGET_HEADER, value);
  return headers;
};

describe(RpcDeadline.name, () => {
  it('passes once the budget, counted from when the request was read, is spent', () => {
    const deadline = RpcDeadline.fromHeaders(withBudget('5000'), 1_000)!;
    expect([deadline.passed(1_000), deadline.passed(5_999.9), deadline.passed(6_000), deadline.passed(7_000)]).toEqual([false, false, true, true]);
  });

  it('has passed at once for a budget of 0', () => {
    expect(RpcDeadline.fromHeaders(withBudget('0'), 1_000)!.passed(1_000)).toBe(true);
  });

  it('is none for a request without a budget, as from a gateway of an earlier release or an internal caller', () => {
    expect(RpcDeadline.fromHeaders(undefined)).toBeUndefined();
    expect(RpcDeadline.fromHeaders(natsHeaders())).toBeUndefined();
  });

  it.each(['', '-1', '1.5', '1e3', 'soon', '86400001', '999999999999'])('is none for a budget that is no whole number of ms up to a day: %j', (value) => {
    expect(RpcDeadline.fromHeaders(withBudget(value))).toBeUndefined();
  });

  it('reads the budget the caller puts on its request, a whole number of ms', () => {
    const headers = natsHeaders();
    setRpcBudget(headers, 1234.4);
    expect(headers.get(RPC_BUDGET_HEADER)).toBe('1234');
    const deadline = RpcDeadline.fromHeaders(headers, 0)!;
    expect([deadline.passed(1233), deadline.passed(1234)]).toEqual([false, true]);
  });
});
