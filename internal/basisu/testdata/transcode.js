// Decodes a KTX 2.0 file with the reference Basis Universal transcoder that
// npm `three` ships (examples/jsm/libs/basis), used as a black box.
//
//   node transcode.js <node_modules> <in.ktx2> <out.rgba>
//
// Writes the top level transcoded to RGBA32 (straight, row by row) to
// out.rgba and prints {"width","height","hasAlpha"} as JSON; exits 1 with
// a message when the transcoder rejects the file.
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
	const [modules, input, output] = process.argv.slice(2);
	const dir = path.join(modules, 'three', 'examples', 'jsm', 'libs', 'basis');
	// The package is "type": "module", so the CommonJS glue is evaluated
	// with a module object of its own rather than required.
	const mod = { exports: {} };
	new Function('module', 'exports', 'require', '__filename', '__dirname', fs.readFileSync(path.join(dir, 'basis_transcoder.js'), 'utf8'))(
		mod, mod.exports, require, path.join(dir, 'basis_transcoder.js'), dir);
	const BASIS = mod.exports;
	const M = await BASIS({ wasmBinary: fs.readFileSync(path.join(dir, 'basis_transcoder.wasm')) });
	M.initializeBasis();
	const file = new M.KTX2File(new Uint8Array(fs.readFileSync(input)));
	try {
		if (!file.isValid()) throw new Error('KTX2File: not a valid file');
		const width = file.getWidth(), height = file.getHeight();
		if (!file.isETC1S()) throw new Error('KTX2File: not ETC1S');
		if (!file.startTranscoding()) throw new Error('startTranscoding failed');
		const RGBA32 = 13; // transcoder_texture_format cTFRGBA32
		const dst = new Uint8Array(file.getImageTranscodedSizeInBytes(0, 0, 0, RGBA32));
		if (!file.transcodeImage(dst, 0, 0, 0, RGBA32, 0, -1, -1)) throw new Error('transcodeImage failed');
		fs.writeFileSync(output, dst);
		process.stdout.write(JSON.stringify({ width, height, hasAlpha: !!file.getHasAlpha() }) + '\n');
	} finally {
		file.close();
		file.delete();
	}
}

main().catch((e) => {
	process.stderr.write(String(e && e.stack || e) + '\n');
	process.exit(1);
});
