import type { EntityManager } from 'typeorm';

type Transactional = { transaction(run: (manager: EntityManager) => Promise<unknown>): Promise<unknown> };

interface Pause {
  at: 'before' | 'after';
  matches: (sql: string) => boolean;
  reached: () => void;
  released: Promise<void>;
}

/**
 * Holds a transaction open at a statement the test names, so a test can run
 * something else against real Postgres while the locks taken so far are held.
 * `wrap` a DataSource or an EntityManager; every transaction run through it
 * checks the pauses set up with `pause`. Each pause stops one statement, once.
 */
export class TransactionPauses {
  private readonly pauses: Pause[] = [];

  wrap<T extends Transactional>(target: T): T {
    const pauses = this.pauses;
    return new Proxy(target, {
      get(real, property, receiver) {
        if (property !== 'transaction') return Reflect.get(real, property, receiver);
        return (run: (manager: EntityManager) => Promise<unknown>) =>
          real.transaction((manager) =>
            run(
              new Proxy(manager, {
                get(inner, name, innerReceiver) {
                  if (name !== 'query') return Reflect.get(inner, name, innerReceiver);
                  // A prepared statement arrives as a pg query config rather than a text.
                  return async (sql: string | { text: string }, parameters?: unknown[]) => {
                    const text = typeof sql === 'string' ? sql : sql.text;
                    const index = pauses.findIndex((pause) => pause.matches(text));
                    const pause = index >= 0 ? pauses.splice(index, 1)[0] : undefined;
                    if (pause?.at === 'before') {
                      pause.reached();
                      await pause.released;
                    }
                    const result = await inner.query(sql as string, parameters);
                    if (pause?.at === 'after') {
                      pause.reached();
                      await pause.released;
                    }
                    return result;
                  };
                },
              }),
            ),
          );
      },
    }) as T;
  }

  /** Stops the next statement `matches` accepts, before or after it runs, until release(). */
  pause(at: Pause['at'], matches: (sql: string) => boolean): { reached: Promise<void>; release: () => void } {
    let reached: () => void = () => undefined;
    let release: () => void = () => undefined;
    const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.pauses.push({ at, matches, reached, released });
    return { reached: reachedPromise, release };
  }
}
