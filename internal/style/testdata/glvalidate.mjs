// Runs the reference style validator of @maplibre/maplibre-gl-style-spec
// (validateStyleMin, what gl-style-validate runs after parsing) on many files
// in one process, for the comparison test of internal/style.
//
// usage: node glvalidate.mjs <package-dir> < files.json > results.json
// files.json is a JSON array of paths; the output maps each path to
// {"errors": [{"message", "severity"}]} or {"parseError": message}.
import {readFileSync} from 'node:fs';
import {pathToFileURL} from 'node:url';
import {join} from 'node:path';

const pkg = process.argv[2];
const spec = await import(pathToFileURL(join(pkg, 'dist', 'index.mjs')).href);
const files = JSON.parse(readFileSync(0, 'utf8'));
const out = {};
for (const f of files) {
    let style;
    try {
        style = JSON.parse(readFileSync(f, 'utf8'));
    } catch (e) {
        out[f] = {parseError: String(e.message)};
        continue;
    }
    try {
        const errors = spec.validateStyleMin(style);
        out[f] = {errors: errors.map((e) => ({message: e.message, severity: e.severity || 'error'}))};
    } catch (e) {
        out[f] = {crash: String(e && e.message)};
    }
}
process.stdout.write(JSON.stringify(out));
