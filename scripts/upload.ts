#!/usr/bin/env node
/**
 * Bulk upload of tool catalogs: `npm run upload -- --help`, or the package's `tool-search-upload`
 * bin. The work is in src/upload/ (Node only; the Worker never imports it).
 */
import { main } from "../src/upload/cli.ts";

process.exitCode = await main(process.argv.slice(2));
