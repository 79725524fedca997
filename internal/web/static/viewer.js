// Tessera viewer pages: a full-page MapLibre GL JS map of a tileset (with an
// automatic style for vector tiles) or of a map style. Configuration comes
// from data-* attributes of #map; no inline script is needed.
(function () {
  'use strict';

  var el = document.getElementById('map');
  var statusEl = document.getElementById('status');
  var cfg = el ? el.dataset : {};

  function showError(msg) {
    if (statusEl) statusEl.textContent = msg;
    if (window.console) console.warn('tessera viewer: ' + msg);
  }

  if (!el) return;
  if (typeof maplibregl === 'undefined') {
    showError('MapLibre GL JS is not installed on this server (run scripts/web-assets.sh and rebuild).');
    return;
  }

  // A colour per layer: hues spread by the golden angle.
  function colour(i) {
    return 'hsl(' + Math.round((i * 137.508 + 200) % 360) + ', 70%, 42%)';
  }

  function addControls(map) {
    map.addControl(new maplibregl.NavigationControl(), 'top-right');
    map.addControl(new maplibregl.ScaleControl(), 'bottom-left');
    if (maplibregl.FullscreenControl) map.addControl(new maplibregl.FullscreenControl(), 'top-right');
  }

  function exposeMap(map) {
    window.tessera = { map: map };
    map.once('load', function () { document.body.dataset.state = 'loaded'; });
    map.on('error', function (e) {
      var m = e && e.error && e.error.message ? e.error.message : 'map error';
      showError(m);
    });
  }

  function sourceFromTileJSON(tj, type) {
    var s = { type: type, tiles: tj.tiles };
    ['minzoom', 'maxzoom', 'bounds', 'attribution', 'scheme'].forEach(function (k) {
      if (tj[k] !== undefined && tj[k] !== null) s[k] = tj[k];
    });
    if (type === 'raster') s.tileSize = tj.tileSize || 256;
    return s;
  }

  function view(tj) {
    var c = Array.isArray(tj.center) && tj.center.length >= 2 ? tj.center : [0, 0, 0];
    return { center: [c[0], c[1]], zoom: c.length > 2 ? c[2] : (tj.minzoom || 0) };
  }

  function vectorStyle(tj) {
    var layers = [{ id: 'background', type: 'background', paint: { 'background-color': '#f3f1ec' } }];
    var groups = [];
    var vls = Array.isArray(tj.vector_layers) ? tj.vector_layers : [];
    var fills = [], lines = [], circles = [];
    vls.forEach(function (vl, i) {
      if (!vl || typeof vl.id !== 'string') return;
      var c = colour(i), base = 'tessera-' + i;
      var g = { name: vl.id, colour: c, ids: [base + '-fill', base + '-line', base + '-circle'] };
      var common = { source: 'tileset', 'source-layer': vl.id };
      fills.push(Object.assign({ id: g.ids[0], type: 'fill', filter: ['==', '$type', 'Polygon'],
        paint: { 'fill-color': c, 'fill-opacity': 0.3, 'fill-outline-color': c } }, common));
      lines.push(Object.assign({ id: g.ids[1], type: 'line', filter: ['==', '$type', 'LineString'],
        layout: { 'line-join': 'round', 'line-cap': 'round' },
        paint: { 'line-color': c, 'line-width': 1.6 } }, common));
      circles.push(Object.assign({ id: g.ids[2], type: 'circle', filter: ['==', '$type', 'Point'],
        paint: { 'circle-color': c, 'circle-radius': 4, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 1 } }, common));
      groups.push(g);
    });
    return {
      style: {
        version: 8,
        sources: { tileset: sourceFromTileJSON(tj, 'vector') },
        layers: layers.concat(fills, lines, circles)
      },
      groups: groups
    };
  }

  function layerList(map, groups) {
    var panel = document.getElementById('panel');
    var fs = document.getElementById('layers');
    if (!panel || !fs || groups.length === 0) return;
    groups.forEach(function (g) {
      var label = document.createElement('label');
      var box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = true;
      box.addEventListener('change', function () {
        g.ids.forEach(function (id) {
          map.setLayoutProperty(id, 'visibility', box.checked ? 'visible' : 'none');
        });
      });
      var sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.backgroundColor = g.colour;
      sw.setAttribute('aria-hidden', 'true');
      var name = document.createElement('span');
      name.textContent = g.name;
      label.appendChild(box);
      label.appendChild(sw);
      label.appendChild(name);
      fs.appendChild(label);
    });
    panel.hidden = false;
  }

  function popupContent(features) {
    var root = document.createElement('div');
    features.slice(0, 5).forEach(function (f) {
      var h = document.createElement('h2');
      h.textContent = f.sourceLayer || f.layer.id;
      root.appendChild(h);
      var dl = document.createElement('dl');
      var props = f.properties || {};
      var keys = Object.keys(props);
      if (keys.length === 0) {
        var dd0 = document.createElement('dd');
        dd0.textContent = '(no properties)';
        dl.appendChild(dd0);
      }
      keys.slice(0, 50).forEach(function (k) {
        var dt = document.createElement('dt');
        dt.textContent = k;
        var dd = document.createElement('dd');
        var v = props[k];
        dd.textContent = typeof v === 'object' ? JSON.stringify(v) : String(v);
        dl.appendChild(dt);
        dl.appendChild(dd);
      });
      root.appendChild(dl);
    });
    return root;
  }

  function inspect(map, groups) {
    var ids = [];
    groups.forEach(function (g) { ids = ids.concat(g.ids); });
    function hits(point) {
      var box = [[point.x - 4, point.y - 4], [point.x + 4, point.y + 4]];
      return map.queryRenderedFeatures(box, { layers: ids.filter(function (id) {
        return map.getLayoutProperty(id, 'visibility') !== 'none';
      }) });
    }
    map.on('click', function (e) {
      var fs = hits(e.point);
      if (fs.length === 0) return;
      new maplibregl.Popup({ className: 'tessera-popup', maxWidth: '22rem' })
        .setLngLat(e.lngLat).setDOMContent(popupContent(fs)).addTo(map);
    });
    map.on('mousemove', function (e) {
      map.getCanvas().style.cursor = hits(e.point).length ? 'pointer' : '';
    });
  }

  function tilesetViewer() {
    fetch(cfg.tilejsonUrl, { credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) throw new Error('TileJSON request failed: HTTP ' + r.status);
      return r.json();
    }).then(function (tj) {
      if (!Array.isArray(tj.tiles) || tj.tiles.length === 0) throw new Error('TileJSON has no tiles');
      var isVector = cfg.kind === 'vector' || Array.isArray(tj.vector_layers);
      var built = isVector ? vectorStyle(tj) : {
        style: { version: 8, sources: { tileset: sourceFromTileJSON(tj, 'raster') },
          layers: [{ id: 'tessera-raster', type: 'raster', source: 'tileset' }] },
        groups: []
      };
      var v = view(tj);
      var map = new maplibregl.Map({ container: el, style: built.style, center: v.center, zoom: v.zoom, hash: true });
      exposeMap(map);
      addControls(map);
      if (isVector && built.groups.length === 0) {
        showError('This tileset lists no vector layers in its TileJSON: there is nothing to draw.');
      }
      map.on('load', function () {
        layerList(map, built.groups);
        inspect(map, built.groups);
      });
    }).catch(function (err) { showError(err.message); });
  }

  function mapViewer() {
    var map = new maplibregl.Map({ container: el, style: cfg.styleUrl, hash: true });
    exposeMap(map);
    addControls(map);
  }

  if (cfg.kind === 'map') mapViewer(); else tilesetViewer();
})();
