// Package pmtiles reads and writes PMTiles version 3 archives: a single file
// holding map tiles addressed by a Hilbert-curve tile id, with a 127-byte
// header, varint-encoded (optionally gzip-compressed) directories of
// run-length entries, optional leaf directories and a JSON metadata object.
//
// # Reading
//
// Open reads an archive through a RangeSource, which gives random access to
// bytes and reports the version (ETag) of what it reads:
//
//   - FileSource (OpenFile): a local file, memory-mapped on Unix (pread
//     elsewhere);
//   - HTTPSource (NewHTTPSource): HTTP(S) range requests;
//   - S3Source (NewS3Source, NewS3SourceURL): ranged GETs signed with AWS
//     Signature Version 4 against any S3-compatible endpoint.
//
// OpenSource and OpenLocation accept these location forms:
//
//	/srv/tiles/world.pmtiles            local path
//	file:///srv/tiles/world.pmtiles     local path as a URL
//	https://example.com/world.pmtiles   HTTP(S) range requests
//	s3://bucket/path/to/world.pmtiles   S3 object (AWS, virtual-hosted style)
//	s3://bucket/key.pmtiles?endpoint=http://127.0.0.1:7070&region=us-east-1&path_style=true
//
// For s3 URLs the query parameters endpoint, region and path_style override
// S3Options; credentials come from S3Options or the AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN environment variables, never
// from the URL. Without credentials requests go unsigned (public buckets).
// With a custom endpoint path-style addressing (endpoint/bucket/key) is the
// default; with the AWS default endpoint virtual-hosted style is.
//
// Remote sources remember the ETag of the first response and send it as
// If-Match; a 412 answer, or a response with another ETag or size, is
// reported as ErrChanged. The Reader then reloads the header and root
// directory, drops its cached directories and retries once, so a replaced
// remote archive is picked up without restarting. Local files are read as
// they were when opened (replace them by renaming and reopen).
//
// Reader.Tile returns tile bytes exactly as stored: Header().TileCompression
// tells whether they are gzip (etc.) encoded so a server can pass them on
// with the matching Content-Encoding. Leaf directories are kept in a DirCache
// (least recently used, bounded in bytes) that several Readers may share.
// Every length, offset and count read from an archive is checked against
// the archive size and configurable limits; malformed archives give errors
// wrapping ErrFormat, never panics or unbounded allocations.
//
// # Writing
//
// Writer builds a clustered archive from tiles added in any order: identical
// contents are stored once, consecutive tile ids with the same content share
// one entry, leaf directories are made when the root would not fit in the
// first 16 KiB, and the file appears atomically (temporary file and rename).
//
// # Tile ids
//
// ZXYToID and IDToZXY convert between z/x/y and tile ids for zoom levels
// 0 to 31 (MaxZoom), the range whose ids fit in 64 bits.
package pmtiles
