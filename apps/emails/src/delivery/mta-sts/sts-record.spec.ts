import { stsPolicyId } from './sts-record';

describe(stsPolicyId.name, () => {
  it('reads the id of a well-formed record, with or without white space and a trailing delimiter', () => {
    expect(stsPolicyId([['v=STSv1; id=20160831085700Z;']])).toBe('20160831085700Z');
    expect(stsPolicyId([['v=STSv1;id=abc123']])).toBe('abc123');
    expect(stsPolicyId([['v=STSv1 ;\tid=abc123 ; ']])).toBe('abc123');
  });

  it('joins the character-strings of one record, as a long record is split on the wire', () => {
    expect(stsPolicyId([['v=STSv1; ', 'id=abc', '123;']])).toBe('abc123');
  });

  it('ignores records that do not begin with v=STSv1, and extension fields', () => {
    expect(stsPolicyId([['v=spf1 -all'], ['v=STSv1; id=one; ext_field=value;'], ['something else']])).toBe('one');
  });

  it('announces no policy unless exactly one STSv1 record is there', () => {
    expect(stsPolicyId([])).toBeNull();
    expect(stsPolicyId([['v=spf1 -all']])).toBeNull();
    expect(stsPolicyId([['v=STSv1; id=one;'], ['v=STSv1; id=two;']])).toBeNull();
  });

  it('announces no policy for a malformed record: no id, an id too long or not alphanumeric, a broken field, another version', () => {
    expect(stsPolicyId([['v=STSv1;']])).toBeNull();
    expect(stsPolicyId([['v=STSv1; ext=1;']])).toBeNull();
    expect(stsPolicyId([[`v=STSv1; id=${'a'.repeat(33)};`]])).toBeNull();
    expect(stsPolicyId([['v=STSv1; id=2016-08-31;']])).toBeNull();
    expect(stsPolicyId([['v=STSv1; id=abc; nonsense;']])).toBeNull();
    expect(stsPolicyId([['v=STSv2; id=abc;']])).toBeNull();
    expect(stsPolicyId([['v=STSv1 id=abc;']])).toBeNull();
  });

  it('reads a record announcing its id a valid length exactly (32 characters)', () => {
    expect(stsPolicyId([[`v=STSv1; id=${'a'.repeat(32)}`]])).toBe('a'.repeat(32));
  });
});
