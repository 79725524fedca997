// The page the MapLibre harness scripts (maplibre-reference.mjs,
// maplibre-tiles.mjs) serve at "/": MapLibre GL JS, served by them under
// /maplibre/, as window.maplibregl, and a map container of width x height
// CSS pixels.
export function mapPage(width, height) {
  return `<!doctype html><html><head>
<script type="module">import * as m from '/maplibre/dist/maplibre-gl.mjs'; window.maplibregl = m;</script></head>
<body style="margin:0"><div id="map" style="width:${width}px;height:${height}px"></div></body></html>`;
}
