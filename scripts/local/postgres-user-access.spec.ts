import { chmodSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstDirectoryClosedTo } from './postgres-user-access';

describe(firstDirectoryClosedTo.name, () => {
  const top = mkdtempSync(join(tmpdir(), 'mailroom-access-'));
  const data = join(top, 'data');
  mkdirSync(data);
  const { uid, gid } = statSync(top);
  const stranger = { uid: uid + 4242, gid: gid + 4242 };

  it('names the first directory on the way that is closed to a user who neither owns it nor is in its group', () => {
    chmodSync(top, 0o700);
    expect(firstDirectoryClosedTo(join(data, 'pg'), stranger.uid, stranger.gid)).toEqual({ path: top, mode: 0o700 });
    // Its owner passes.
    expect(firstDirectoryClosedTo(join(data, 'pg'), uid, gid)).toBeUndefined();
  });

  it('lets through where others may enter, and stops at directories not made yet', () => {
    chmodSync(top, 0o711);
    expect(firstDirectoryClosedTo(join(data, 'not-yet', 'pg'), stranger.uid, stranger.gid)).toBeUndefined();
  });
});
