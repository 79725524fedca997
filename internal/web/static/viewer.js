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

  // The map page starts in raster mode (the server's own PNG tiles in a
  // plain grid of <img>, no WebGL) when the browser has no WebGL or only a
  // software one (SwiftShader, llvmpipe): there MapLibre takes 15 to 35 s
  // to draw a vector map, while the server's tiles show within a second.
  // ?mode=raster or ?mode=vector chooses; a button switches.
  var gl = webglInfo();
  var params = new URLSearchParams(window.location.search);
  var mode = params.get('mode');
  if (cfg.kind === 'map' && mode !== 'raster' && mode !== 'vector') {
    mode = gl.available && !gl.software ? 'vector' : 'raster';
  }
  if (cfg.kind === 'map') modeSwitch(mode, gl);
  if (cfg.kind === 'map' && mode === 'raster') {
    rasterViewer();
    return;
  }
  if (typeof maplibregl === 'undefined') {
    showError('MapLibre GL JS is not installed on this server (run scripts/web-assets.sh and rebuild).');
    return;
  }

  // webglInfo reports whether WebGL is available and whether it is drawn
  // in software (the renderer string of WEBGL_debug_renderer_info).
  function webglInfo() {
    var info = { available: false, software: true, renderer: 'none' };
    try {
      var c = document.createElement('canvas');
      var ctx = c.getContext('webgl2') || c.getContext('webgl');
      if (!ctx) return info;
      var ext = ctx.getExtension('WEBGL_debug_renderer_info');
      var r = String(ext ? ctx.getParameter(ext.UNMASKED_RENDERER_WEBGL) : ctx.getParameter(ctx.RENDERER));
      info = { available: true, software: /swiftshader|llvmpipe|softpipe|software|basic render/i.test(r), renderer: r };
      var lose = ctx.getExtension('WEBGL_lose_context');
      if (lose) lose.loseContext();
    } catch (e) { /* no WebGL */ }
    return info;
  }

  // modeSwitch shows the button that reloads the page in the other mode,
  // keeping the view (the #zoom/lat/lon hash both modes share).
  function modeSwitch(current, gl) {
    var b = document.getElementById('mode-switch');
    if (!b) return;
    var other = current === 'raster' ? 'vector' : 'raster';
    b.textContent = other === 'vector' ? 'Vector map (WebGL)' : 'Raster map';
    b.dataset.mode = current;
    if (other === 'vector' && !gl.available) {
      b.disabled = true;
      b.title = 'This browser has no WebGL: the vector map needs it.';
    } else if (other === 'vector' && gl.software) {
      b.title = 'WebGL is drawn in software here (' + gl.renderer + '): the vector map may take half a minute to appear.';
    }
    b.hidden = false;
    b.addEventListener('click', function () {
      var q = new URLSearchParams(window.location.search);
      q.set('mode', other);
      window.location.search = '?' + q.toString();
    });
  }

  // rasterViewer shows the map as the server's raster tiles in a grid of
  // <img> elements: drag to pan, wheel, double click or the buttons to zoom.
  function rasterViewer() {
    fetch(cfg.tilejsonUrl, { credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) throw new Error('TileJSON request failed: HTTP ' + r.status);
      return r.json();
    }).then(function (tj) {
      if (!Array.isArray(tj.tiles) || tj.tiles.length === 0) throw new Error('TileJSON has no tiles');
      new RasterMap(el, tj);
    }).catch(function (err) { showError(err.message); });
  }

  function RasterMap(container, tj) {
    var self = this;
    var size = tj.tileSize || 256;
    // tiles beyond the tileset's zooms are shown scaled from its nearest
    var minZ = tj.minzoom || 0, maxZ = Math.min(tj.maxzoom === undefined ? 22 : tj.maxzoom, 22);
    var v = view(tj);
    var h = /^#([\d.]+)\/(-?[\d.]+)\/(-?[\d.]+)/.exec(window.location.hash);
    // MapLibre's hash and zoom: #zoom/lat/lon, a world 512 * 2^zoom px wide.
    var zoom = h ? +h[1] : v.zoom, lat = h ? +h[2] : v.center[1], lon = h ? +h[3] : v.center[0];
    var layer = document.createElement('div');
    layer.className = 'raster-tiles';
    container.appendChild(layer);
    container.classList.add('raster-map');
    var imgs = {};
    function worldSize(z) { return 512 * Math.pow(2, z); }
    function project(lo, la, z) {
      var s = Math.sin(Math.max(-85.0511, Math.min(85.0511, la)) * Math.PI / 180), w = worldSize(z);
      return [(lo + 180) / 360 * w, (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * w];
    }
    function unproject(x, y, z) {
      var w = worldSize(z), n = Math.PI - 2 * Math.PI * y / w;
      return [x / w * 360 - 180, 180 / Math.PI * Math.atan(0.5 * (Math.exp(n) - Math.exp(-n)))];
    }
    function url(z, x, y) {
      return tj.tiles[(x + y) % tj.tiles.length].replace('{z}', z).replace('{x}', x).replace('{y}', y);
    }
    var pending = 0;
    function draw() {
      zoom = Math.max(0, Math.min(22, zoom));
      var W = container.clientWidth, H = container.clientHeight;
      // tiles of zoom tz, each shown tile px wide
      var tz = Math.max(minZ, Math.min(maxZ, Math.round(zoom + Math.log2(512 / size))));
      var tile = worldSize(zoom) / Math.pow(2, tz);
      var c = project(lon, lat, zoom);
      var left = c[0] - W / 2, top = c[1] - H / 2, n = Math.pow(2, tz);
      var want = {};
      for (var ty = Math.max(0, Math.floor(top / tile)); ty <= Math.min(n - 1, Math.floor((top + H) / tile)); ty++) {
        for (var tx = Math.floor(left / tile); tx <= Math.floor((left + W) / tile); tx++) {
          var wx = ((tx % n) + n) % n, key = tz + '/' + tx + '/' + ty;
          want[key] = true;
          var img = imgs[key];
          if (!img) {
            img = document.createElement('img');
            img.alt = '';
            img.draggable = false;
            pending++;
            img.onload = img.onerror = function () { pending--; if (pending === 0) document.body.dataset.state = 'loaded'; };
            img.src = url(tz, wx, ty);
            imgs[key] = img;
            layer.appendChild(img);
          }
          img.style.left = Math.round(tx * tile - left) + 'px';
          img.style.top = Math.round(ty * tile - top) + 'px';
          img.style.width = img.style.height = Math.ceil(tile) + 'px';
        }
      }
      Object.keys(imgs).forEach(function (k) {
        if (want[k]) return;
        var img = imgs[k];
        if (!img.complete) { pending--; img.onload = img.onerror = null; }
        layer.removeChild(img);
        delete imgs[k];
      });
      if (pending === 0) document.body.dataset.state = 'loaded';
      history.replaceState(null, '', '#' + (Math.round(zoom * 100) / 100) + '/' + lat.toFixed(4) + '/' + lon.toFixed(4));
    }
    function zoomAt(dz, px, py) {
      var W = container.clientWidth, H = container.clientHeight;
      var c = project(lon, lat, zoom), p = [c[0] - W / 2 + px, c[1] - H / 2 + py];
      var ll = unproject(p[0], p[1], zoom);
      var nz = Math.max(0, Math.min(22, zoom + dz));
      var q = project(ll[0], ll[1], nz);
      var nc = unproject(q[0] - px + W / 2, q[1] - py + H / 2, nz);
      zoom = nz; lon = nc[0]; lat = nc[1];
      draw();
    }
    var drag = null;
    container.addEventListener('pointerdown', function (e) {
      if (e.target.closest && e.target.closest('button')) return;
      drag = { x: e.clientX, y: e.clientY };
      container.setPointerCapture(e.pointerId);
    });
    container.addEventListener('pointermove', function (e) {
      if (!drag) return;
      var c = project(lon, lat, zoom);
      var ll = unproject(c[0] - (e.clientX - drag.x), c[1] - (e.clientY - drag.y), zoom);
      lon = ((ll[0] + 540) % 360) - 180; lat = ll[1];
      drag = { x: e.clientX, y: e.clientY };
      draw();
    });
    container.addEventListener('pointerup', function () { drag = null; });
    container.addEventListener('wheel', function (e) {
      e.preventDefault();
      var r = container.getBoundingClientRect();
      zoomAt(e.deltaY < 0 ? 0.5 : -0.5, e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    container.addEventListener('dblclick', function (e) {
      var r = container.getBoundingClientRect();
      zoomAt(1, e.clientX - r.left, e.clientY - r.top);
    });
    var nav = document.createElement('div');
    nav.className = 'raster-nav';
    [['+', 'Zoom in', 1], ['\u2212', 'Zoom out', -1]].forEach(function (b) {
      var btn = document.createElement('button');
      btn.type = 'button';
      btn.textContent = b[0];
      btn.title = b[1];
      btn.setAttribute('aria-label', b[1]);
      btn.addEventListener('click', function () { zoomAt(b[2], container.clientWidth / 2, container.clientHeight / 2); });
      nav.appendChild(btn);
    });
    container.appendChild(nav);
    if (tj.attribution) {
      var a = document.createElement('div');
      a.className = 'raster-attribution';
      a.innerHTML = tj.attribution; // the server's own TileJSON, as MapLibre shows it
      container.appendChild(a);
    }
    window.addEventListener('resize', draw);
    window.tessera = { mode: 'raster', view: function () { return { zoom: zoom, lat: lat, lon: lon }; }, zoomAt: zoomAt };
    draw();
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
    map.once('load', function () { window.tessera.mode = 'vector'; });
    exposeMap(map);
    addControls(map);
  }

  if (cfg.kind === 'map') mapViewer(); else tilesetViewer();
})();
