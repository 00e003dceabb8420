/**
 * Bulk upload of tool catalogs: `npm run upload -- --help`. The package's `tool-search-upload`
 * command (bin/tool-search-upload.js) runs this file too. The work is in src/upload/ (Node only;
 * the Worker never imports it).
 */
import { main } from "../src/upload/cli.ts";

process.exitCode = await main(process.argv.slice(2));
