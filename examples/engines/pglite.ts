// The interval join in Postgres (PGlite, @electric-sql/pglite: Postgres
// compiled to WASM), maintained by triggers as a change feed: the rows of
// both sides live in one table keyed by their identity (key, side, id);
// after each insert or delete of a row, a trigger writes the matches it
// makes or ends into a `changelog` table, and the job reads the changelog
// written since the last batch. Each batch is one transaction. Inserts are
// `ON CONFLICT DO NOTHING` (a redelivered row is ignored, the usual way to
// load a stream into a keyed table); a retraction deletes the row with its
// identity.
import { PGlite } from '@electric-sql/pglite';
import type { IncrementalJoin, MatchDiff, Overlap, RowChange } from './engine.ts';

/** The overlap test the trigger runs between the row `x` that changed and a row `o` of the other side (SPEC J3). */
const overlapSql: Record<Overlap, string> = {
  inclusive: 'x.start_ts <= o.end_ts AND o.start_ts <= x.end_ts',
  strict: 'x.start_ts < o.end_ts AND o.start_ts <= x.end_ts',
};

const schema = (overlap: Overlap) => `
DROP TABLE IF EXISTS rows, changelog CASCADE;
DROP FUNCTION IF EXISTS matches_of CASCADE;
CREATE TABLE rows (
  key text NOT NULL, side text NOT NULL, id text NOT NULL,
  ts bigint NOT NULL, start_ts bigint NOT NULL, end_ts bigint NOT NULL,
  PRIMARY KEY (key, side, id)
);
CREATE TABLE changelog (n bigserial PRIMARY KEY, op text NOT NULL, key text NOT NULL, l_id text NOT NULL, r_id text NOT NULL);
CREATE FUNCTION matches_of() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  x rows%ROWTYPE;
  change text;
BEGIN
  IF TG_OP = 'INSERT' THEN x := NEW; change := 'insert'; ELSE x := OLD; change := 'retract'; END IF;
  INSERT INTO changelog (op, key, l_id, r_id)
    SELECT change, x.key,
           CASE WHEN x.side = 'L' THEN x.id ELSE o.id END,
           CASE WHEN x.side = 'L' THEN o.id ELSE x.id END
      FROM rows o
     WHERE o.key = x.key AND o.side <> x.side AND ${overlapSql[overlap]};
  RETURN NULL;
END $$;
CREATE TRIGGER join_rows AFTER INSERT OR DELETE ON rows FOR EACH ROW EXECUTE FUNCTION matches_of();
`;

/** A Postgres database in memory. Starting one takes seconds (tens on a loaded machine): share it between sessions. */
export function openPostgres(): Promise<PGlite> {
  return PGlite.create();
}

/**
 * A key or id as stored: its JSON text. Postgres text holds no NUL, and a key
 * or id is any non-empty string (J1); the JSON text is one-to-one, so equal
 * names stay equal and different ones different.
 */
const stored = (name: string): string => JSON.stringify(name);
const named = (text: string): string => JSON.parse(text) as string;

/** The join on `db`, its tables created afresh (anything of a previous session is dropped). */
export async function pgliteJoin(db: PGlite, overlap: Overlap = 'inclusive'): Promise<IncrementalJoin> {
  await db.exec(schema(overlap));
  let read = 0;
  return {
    async batch(changes: readonly RowChange[]): Promise<MatchDiff[]> {
      return db.transaction(async (tx) => {
        for (const { row, diff } of changes) {
          if (diff > 0)
            await tx.query('INSERT INTO rows VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING', [
              stored(row.key),
              row.side,
              stored(row.id),
              row.ts,
              row.start,
              row.end,
            ]);
          else await tx.query('DELETE FROM rows WHERE key = $1 AND side = $2 AND id = $3', [stored(row.key), row.side, stored(row.id)]);
        }
        const feed = await tx.query<{ n: number; op: string; key: string; l_id: string; r_id: string }>(
          'SELECT n, op, key, l_id, r_id FROM changelog WHERE n > $1 ORDER BY n',
          [read],
        );
        const out: MatchDiff[] = [];
        for (const c of feed.rows) {
          read = Math.max(read, Number(c.n));
          out.push({ key: named(c.key), left: named(c.l_id), right: named(c.r_id), diff: c.op === 'insert' ? 1 : -1 });
        }
        return out;
      });
    },
  };
}
