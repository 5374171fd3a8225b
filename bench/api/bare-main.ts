/**
 * Entry of bench/api's bare ceiling as a process of its own, so its CPU time can be read apart
 * from the load generator's: `BARE_CONNECTION` is a postgres URL or JSON postgres.js options.
 */
import { startBareServer } from "./bare-server";

const raw = process.env.BARE_CONNECTION ?? "";
const connection = raw.startsWith("{") ? JSON.parse(raw) : raw;
const port = Number(process.env.BARE_PORT);
startBareServer(connection, port).then(
  () => console.log(`bare ceiling on ${port}`),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
