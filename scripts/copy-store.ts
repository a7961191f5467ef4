/**
 * `npm run store:copy [-- <sqlite file>]`: copies the console's SQLite store (default: the data
 * folder's switchboard.db) into the PostgreSQL database of `SWITCHBOARD_DATABASE_URL`, applying its
 * migrations first. Safe to run again (docs/deploy.md, "Moving to PostgreSQL").
 */
import fs from "node:fs";
import path from "node:path";
import { dataDirOf } from "../server/data-dir";
import { copyStore } from "../server/store/copy-store";
import { PostgresStore } from "../server/store/postgres-store";
import { SqliteStore } from "../server/store/sqlite-store";

async function main() {
  const url = process.env.SWITCHBOARD_DATABASE_URL;
  if (!url || !/^postgres(ql)?:\/\//.test(url)) {
    console.error("Set SWITCHBOARD_DATABASE_URL to the PostgreSQL database to copy into (postgres://…).");
    process.exit(2);
  }
  const file = process.argv[2] ?? path.join(dataDirOf(process.env), "switchboard.db");
  if (!fs.existsSync(file)) {
    console.error(`No SQLite store at ${file}.`);
    process.exit(2);
  }
  const from = new SqliteStore(file);
  const to = await PostgresStore.open(url);
  try {
    const counts = await copyStore(from, to);
    console.log(`Copied ${file} into PostgreSQL:`);
    for (const [kind, n] of Object.entries(counts)) console.log(`  ${kind}: ${n}`);
  } finally {
    from.close();
    await to.close();
  }
}

main().catch((err: unknown) => {
  console.error(`The copy failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
