// graphglean's graph view: canvas drawing, d3-force layout run in time slices, search, filters, sources.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("gg-data").textContent);
  var PALETTE = ["#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5",
    "#9c6b4e", "#2b9aa0", "#d4a017", "#b4436c"];
  var OTHER = "#9aa0a6", UNGROUNDED = 1, CONFLICT = 2, OFF_SCHEMA = 4;
  var FRAME_BUDGET_MS = 12, MAX_TICKS = 400, LABELS = 160, EDGE_DETAIL = 3000;

  var $ = function (id) { return document.getElementById(id); };
  var canvas = $("gg-canvas"), ctx = canvas.getContext("2d");
  var types = data.types.map(function (t, i) {
    return { name: t[0], count: t[1], color: i < PALETTE.length ? PALETTE[i] : OTHER, on: true };
  });
  var nodes = data.nodes.map(function (n, i) {
    return { i: i, id: n.id, name: n.name, type: n.type, deg: n.deg, desc: n.desc, flags: n.flags,
      aliases: n.aliases || [], types: n.types || null, freq: n.freq, src: n.src, c: n.c || [],
      r: 2.5 + 11 * Math.sqrt(n.deg / Math.max(1, data.nodes.length ? data.nodes[0].deg : 1)),
      visible: true, edges: [] };
  });
  var maxW = 1;
  data.edges.forEach(function (e) { if (e.w > maxW) maxW = e.w; });
  var edges = data.edges.map(function (e, i) {
    var edge = { i: i, a: nodes[e.s], b: nodes[e.t], w: e.w, desc: e.desc, kw: e.kw, rel: e.rel || "", off: !!e.off,
      width: 0.6 + 3 * Math.log1p(Math.max(e.w, 0)) / Math.log1p(maxW) };
    edge.a.edges.push(edge);
    if (edge.b !== edge.a) edge.b.edges.push(edge);
    return edge;
  });
  var byDegree = nodes.slice().sort(function (p, q) { return q.deg - p.deg; });
  var leaders = [];  // the best-connected node of each coarsest community, larger communities first
  var maxDeg = byDegree.length ? byDegree[0].deg : 0;

  // ---- communities: the layout groups nodes by their coarsest community; colours may follow any level -----
  var communities = data.communities || [], reports = data.reports || [];
  var reportOf = {}, communityOf = {}, levels = 0;
  reports.forEach(function (r) { reportOf[r.community] = r; });
  communities.forEach(function (c) { communityOf[c.id] = c; c.members = []; levels = Math.max(levels, c.level + 1); });
  nodes.forEach(function (n) { n.c.forEach(function (id) { if (communityOf[id]) communityOf[id].members.push(n); }); });
  var anchors = (function () {
    // coarsest communities, largest first, on a sunflower spiral whose rings grow with the area they fill
    var tops = communities.filter(function (c) { return c.level === 0 && c.members.length; })
      .sort(function (p, q) { return q.members.length - p.members.length || p.id - q.id; });
    var at = {}, filled = 0, spacing = 9;
    tops.forEach(function (c, i) {
      var rad = spacing * Math.sqrt(filled + c.members.length / 2), angle = i * 2.39996;
      at[c.id] = { x: rad * Math.cos(angle), y: rad * Math.sin(angle) };
      filled += c.members.length;
    });
    var outer = spacing * Math.sqrt(filled + nodes.length * 0.1) + 40;
    nodes.forEach(function (n, i) {
      var a = n.c.length && at[n.c[0]];
      if (a) { n.ax = a.x; n.ay = a.y; n.grouped = true; }
      else { var t = i * 2.39996; n.ax = outer * Math.cos(t); n.ay = outer * Math.sin(t); n.grouped = false; }
    });
    return at;
  })();
  var grouped = Object.keys(anchors).length > 1;
  communities.filter(function (c) { return c.level === 0 && c.members.length; })
    .sort(function (p, q) { return q.members.length - p.members.length || p.id - q.id; })
    .forEach(function (c) {
      leaders.push(c.members.reduce(function (best, n) { return n.deg > best.deg ? n : best; }, c.members[0]));
    });
  var colourBy = "type", colourLevel = 0, communityColour = {};
  function communityColours(level) {
    var list = communities.filter(function (c) { return c.level === level; })
      .sort(function (p, q) { return q.members.length - p.members.length || p.id - q.id; });
    communityColour = {};
    list.forEach(function (c, i) {
      communityColour[c.id] = i < PALETTE.length ? PALETTE[i] : "hsl(" + Math.round((i * 137.508) % 360) + ",55%,55%)";
    });
  }
  function colorOf(n) {
    if (colourBy === "type") return types[n.type].color;
    var id = n.c[Math.min(colourLevel, n.c.length - 1)];
    return n.c.length && communityColour[id] || OTHER;
  }

  // ---- state -------------------------------------------------------------------------------------------
  var cam = { x: 0, y: 0, k: 1 }, fitK = 1, autoFit = true, selected = null, hovered = null, dirty = true;
  var shownCommunity = null;
  var minDegree = 0, onlyFlags = 0, drawnNodes = 0, drawnEdges = 0, firstDrawn = false;
  var width = 0, height = 0, dpr = 1;

  // ---- layout: d3-force in a worker, so drawing and interaction never wait for it ------------------------
  // (without workers, the same simulation advances a few ticks per animation frame here)
  var layoutRunning = nodes.length > 0, layoutStarted = performance.now(), dragging = null;
  var links = edges.filter(function (e) { return e.a !== e.b; }).map(function (e) { return [e.a.i, e.b.i]; });
  d3.forceSimulation(nodes).stop();  // d3's starting positions (a phyllotaxis spiral, hubs in the middle)
  if (grouped) nodes.forEach(function (n) { n.x = n.ax + n.x * 0.3; n.y = n.ay + n.y * 0.3; });
  links.forEach(function (l) { var a = nodes[l[0]], b = nodes[l[1]]; l.push(a.c[0] === b.c[0] ? 1 : 0); });

  function layoutDone() {
    layoutRunning = false;
    $("gg-layout").textContent = "Resume layout";
    $("gg-stats").setAttribute("data-layout-ms", String(Math.round(performance.now() - layoutStarted)));
  }

  var layout = (function () {
    var points = nodes.map(function (n) {
      return { deg: n.deg, r: n.r, x: n.x, y: n.y, ax: n.ax, ay: n.ay, grouped: grouped && n.grouped };
    });
    if (!points.length) { layoutRunning = false; return { pin: function () {}, unpin: function () {}, run: function () {} }; }
    try {
      var vendor = Array.prototype.map.call(document.querySelectorAll("script.gg-vendor"),
        function (s) { return s.textContent; }).join("\n;\n");
      var source = vendor + "\n;\n" + simulation.toString() + "\n(" + layoutWorker.toString() + ")(self);";
      var url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
      var worker = new Worker(url);
      worker.onmessage = function (ev) {
        var xy = ev.data.xy;
        for (var i = 0; i < nodes.length; i++) {
          if (nodes[i] !== dragging) { nodes[i].x = xy[2 * i]; nodes[i].y = xy[2 * i + 1]; }
        }
        if (autoFit) fit();
        redraw();
        if (ev.data.done && layoutRunning) layoutDone();
      };
      var control = {
        pin: function (n) { worker.postMessage({ type: "pin", i: n.i, x: n.x, y: n.y }); },
        unpin: function (n) { worker.postMessage({ type: "unpin", i: n.i }); },
        run: function (on) { worker.postMessage({ type: "run", on: on }); }
      };
      worker.onerror = function (ev) {  // a browser that refuses the worker's script: lay out here instead
        if (ev.preventDefault) ev.preventDefault();
        worker.terminate();
        var here = frameLayout();
        control.pin = here.pin; control.unpin = here.unpin; control.run = here.run;
      };
      worker.postMessage({ type: "start", nodes: points, links: links, maxTicks: MAX_TICKS, grouped: grouped });
      return control;
    } catch (e) {
      return frameLayout();
    }
  })();

  // Large graphs get fewer ticks (each costs O(n log n)) and a coarser Barnes-Hut approximation.
  // Grouped: each node is drawn to its community's anchor, and links between communities pull less, so
  // communities lie apart and the first screen shows them rather than one hairball.
  function simulation(d3, points, links, grouped) {
    var ticks = points.length <= 2000 ? 300 : Math.max(120, Math.round(300 * Math.sqrt(2000 / points.length)));
    var link = d3.forceLink(links.map(function (l) { return { source: l[0], target: l[1], same: l[2] }; }))
      .distance(function (l) { return 18 + l.source.r + l.target.r; });
    if (grouped) {
      var base = link.strength();
      link.strength(function (l, i, all) { return base(l, i, all) * (l.same ? 1 : 0.15); });
    }
    var pull = function (p) { return grouped ? (p.grouped ? 0.12 : 0.03) : 0.04; };
    return d3.forceSimulation(points)
      .alphaDecay(1 - Math.pow(0.001, 1 / ticks))
      .force("link", link)
      .force("charge", d3.forceManyBody().strength(function (p) { return -25 - 6 * Math.sqrt(p.deg); })
        .theta(points.length > 5000 ? 1.2 : 0.9).distanceMax(grouped ? 250 : 600))
      .force("x", d3.forceX(function (p) { return grouped ? p.ax : 0; }).strength(pull))
      .force("y", d3.forceY(function (p) { return grouped ? p.ay : 0; }).strength(pull))
      .stop();
  }

  // Runs inside the worker (its source text is the worker's script): ticks in slices, posting positions.
  function layoutWorker(scope) {
    var sim, points, ticks = 0, maxTicks = 0, running = false;
    function loop() {
      if (!running) return;
      var t0 = Date.now();
      do { sim.tick(); ticks++; } while (Date.now() - t0 < 30 && sim.alpha() > sim.alphaMin());
      var done = sim.alphaTarget() === 0 && (sim.alpha() <= sim.alphaMin() || ticks >= maxTicks);
      var xy = new Float64Array(points.length * 2);
      for (var i = 0; i < points.length; i++) { xy[2 * i] = points[i].x; xy[2 * i + 1] = points[i].y; }
      scope.postMessage({ xy: xy, done: done }, [xy.buffer]);
      if (done) running = false; else setTimeout(loop, 0);
    }
    function resume() { if (!running) { running = true; setTimeout(loop, 0); } }
    scope.onmessage = function (ev) {
      var m = ev.data;
      if (m.type === "start") {
        points = m.nodes; maxTicks = m.maxTicks;
        sim = simulation(scope.d3, points, m.links, m.grouped);
        resume();
      } else if (m.type === "pin") {
        points[m.i].fx = m.x; points[m.i].fy = m.y;
        sim.alphaTarget(0.2).alpha(Math.max(sim.alpha(), 0.2));
        resume();
      } else if (m.type === "unpin") {
        points[m.i].fx = null; points[m.i].fy = null;
        sim.alphaTarget(0);
        ticks = Math.min(ticks, maxTicks - 100);
      } else if (m.type === "run") {
        if (m.on) { ticks = 0; sim.alpha(Math.max(sim.alpha(), 0.3)); resume(); } else running = false;
      }
    };
  }

  function frameLayout() {
    var sim = simulation(d3, nodes, links, grouped), ticks = 0, on = true;
    function step() {
      if (!on) return;
      var t0 = performance.now();
      do { sim.tick(); ticks++; } while (performance.now() - t0 < FRAME_BUDGET_MS && sim.alpha() > sim.alphaMin());
      if (sim.alphaTarget() === 0 && (sim.alpha() <= sim.alphaMin() || ticks >= MAX_TICKS)) {
        on = false;
        if (layoutRunning) layoutDone();
      } else requestAnimationFrame(step);
      if (autoFit) fit();
      redraw();
    }
    requestAnimationFrame(step);
    function resume() { if (!on) { on = true; requestAnimationFrame(step); } }
    return {
      pin: function (n) { n.fx = n.x; n.fy = n.y; sim.alphaTarget(0.2).alpha(Math.max(sim.alpha(), 0.2)); resume(); },
      unpin: function (n) { n.fx = null; n.fy = null; sim.alphaTarget(0); ticks = Math.min(ticks, MAX_TICKS - 100); },
      run: function (run) { if (run) { ticks = 0; sim.alpha(Math.max(sim.alpha(), 0.3)); resume(); } else on = false; }
    };
  }

  var pending = false;
  function schedule() { if (!pending) { pending = true; requestAnimationFrame(frame); } }
  function frame() {
    pending = false;
    if (dirty) { draw(); dirty = false; }
  }
  function redraw() { dirty = true; schedule(); }

  // ---- camera ------------------------------------------------------------------------------------------
  function resize() {
    var box = canvas.parentNode.getBoundingClientRect(), w = Math.max(1, box.width), h = Math.max(1, box.height);
    dpr = window.devicePixelRatio || 1;
    if (w === width && h === height && canvas.width === Math.round(w * dpr)) return;
    cam.x += (w - width) / 2; cam.y += (h - height) / 2;  // the view keeps its centre when a panel opens
    width = w; height = h;
    canvas.width = Math.round(width * dpr); canvas.height = Math.round(height * dpr);
    if (autoFit) fit();
    redraw();
  }
  function fit() {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    nodes.forEach(function (n) {
      if (!n.visible) return;
      x0 = Math.min(x0, n.x - n.r); y0 = Math.min(y0, n.y - n.r);
      x1 = Math.max(x1, n.x + n.r); y1 = Math.max(y1, n.y + n.r);
    });
    if (!isFinite(x0)) { cam = { x: width / 2, y: height / 2, k: 1 }; return; }
    var k = Math.min(width / (x1 - x0 + 40), height / (y1 - y0 + 40), 4);
    fitK = k;
    cam = { k: k, x: width / 2 - k * (x0 + x1) / 2, y: height / 2 - k * (y0 + y1) / 2 };
  }
  function toWorld(px, py) { return [(px - cam.x) / cam.k, (py - cam.y) / cam.k]; }

  // ---- drawing -----------------------------------------------------------------------------------------
  function radius(n) { return Math.max(n.r, 1.5 / cam.k); }
  function edgeShown(e) { return e.a.visible && e.b.visible; }

  // Strokes wider than one device pixel are slow to rasterize in bulk (ten times slower than hairlines in
  // software canvas), so when more than EDGE_DETAIL edges are on screen weight shows as opacity instead.
  function onScreen(list) {
    var m = 20, x0 = -cam.x / cam.k - m, y0 = -cam.y / cam.k - m;
    var x1 = (width - cam.x) / cam.k + m, y1 = (height - cam.y) / cam.k + m;
    return list.filter(function (e) {
      return !((e.a.x < x0 && e.b.x < x0) || (e.a.x > x1 && e.b.x > x1) ||
               (e.a.y < y0 && e.b.y < y0) || (e.a.y > y1 && e.b.y > y1));
    });
  }

  function strokeEdges(list, color, alpha, scale) {
    list = onScreen(list);
    var detailed = list.length <= EDGE_DETAIL, buckets = {};
    list.forEach(function (e) {
      var key = detailed ? Math.round(e.width * 2) / 2 : Math.round(e.width);
      (buckets[key] = buckets[key] || []).push(e);
    });
    ctx.strokeStyle = color;
    Object.keys(buckets).forEach(function (key) {
      if (detailed) { ctx.lineWidth = key * scale / cam.k; ctx.globalAlpha = alpha; }
      else { ctx.lineWidth = 1 / (cam.k * dpr); ctx.globalAlpha = Math.min(1, alpha * (0.5 + key / 3)); }
      ctx.beginPath();
      buckets[key].forEach(function (e) {
        if (e.a === e.b) {
          var r = radius(e.a);
          ctx.moveTo(e.a.x + r * 1.9, e.a.y - r * 0.6);
          ctx.arc(e.a.x + r * 1.2, e.a.y - r * 0.6, r * 0.7, 0, 2 * Math.PI);
        } else { ctx.moveTo(e.a.x, e.a.y); ctx.lineTo(e.b.x, e.b.y); }
      });
      ctx.stroke();
    });
    ctx.globalAlpha = 1;
  }

  function arrows(list, color) {
    ctx.fillStyle = color;
    ctx.beginPath();
    list.forEach(function (e) {
      if (e.a === e.b) return;
      var dx = e.b.x - e.a.x, dy = e.b.y - e.a.y, len = Math.hypot(dx, dy) || 1, r = radius(e.b);
      var ux = dx / len, uy = dy / len, tipx = e.b.x - ux * r, tipy = e.b.y - uy * r, s = 7 / cam.k;
      ctx.moveTo(tipx, tipy);
      ctx.lineTo(tipx - ux * s - uy * s * 0.5, tipy - uy * s + ux * s * 0.5);
      ctx.lineTo(tipx - ux * s + uy * s * 0.5, tipy - uy * s - ux * s * 0.5);
      ctx.closePath();
    });
    ctx.fill();
  }

  function fillNodes(list) {
    var groups = {};
    list.forEach(function (n) { var c = colorOf(n); (groups[c] = groups[c] || []).push(n); });
    Object.keys(groups).forEach(function (color) {
      ctx.fillStyle = color;
      ctx.beginPath();
      groups[color].forEach(function (n) {
        var r = radius(n);
        ctx.moveTo(n.x + r, n.y); ctx.arc(n.x, n.y, r, 0, 2 * Math.PI);
      });
      ctx.fill();
    });
  }

  function ringNodes(list, flag, color, dash) {
    ctx.strokeStyle = color;
    ctx.lineWidth = 2 / cam.k;
    ctx.setLineDash(dash ? [3 / cam.k, 2 / cam.k] : []);
    ctx.beginPath();
    list.forEach(function (n) {
      if (!(n.flags & flag)) return;
      var r = radius(n) + 2 / cam.k;
      ctx.moveTo(n.x + r, n.y); ctx.arc(n.x, n.y, r, 0, 2 * Math.PI);
    });
    ctx.stroke();
    ctx.setLineDash([]);
  }

  function draw() {
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.setTransform(dpr * cam.k, 0, 0, dpr * cam.k, dpr * cam.x, dpr * cam.y);
    var shownNodes = nodes.filter(function (n) { return n.visible; });
    var shownEdges = edges.filter(edgeShown), shownCount = shownNodes.length;
    var focus = selected || hovered;
    var near = focus ? focusSet(focus) : shownCommunity ? memberSet(shownCommunity) : null;
    if (near) {
      strokeEdges(shownEdges.filter(function (e) { return !near.edges.has(e); }), "#8c959f", 0.12, 1);
      var mine = shownEdges.filter(function (e) { return near.edges.has(e); });
      strokeEdges(mine, "#0969da", 0.7, 1.4);
      if (data.directed) arrows(mine, "rgba(9,105,218,0.9)");
      ctx.globalAlpha = 0.25;
      fillNodes(shownNodes.filter(function (n) { return !near.nodes.has(n); }));
      ctx.globalAlpha = 1;
      fillNodes(shownNodes.filter(function (n) { return near.nodes.has(n); }));
    } else {
      strokeEdges(shownEdges, "#6e7781", 0.35, 1);
      if (data.directed && (shownEdges.length < 3000 || cam.k > 1.5)) arrows(shownEdges, "rgba(110,119,129,0.6)");
      fillNodes(shownNodes);
    }
    if (near) {
      var others = shownNodes.filter(function (n) { return !near.nodes.has(n); });
      ctx.globalAlpha = 0.25;
      ringNodes(others, UNGROUNDED, "#cf222e", true);
      ringNodes(others, CONFLICT, "#bf8700", false);
      ctx.globalAlpha = 1;
      shownNodes = shownNodes.filter(function (n) { return near.nodes.has(n); });
    }
    ringNodes(shownNodes, UNGROUNDED, "#cf222e", true);
    ringNodes(shownNodes, CONFLICT, "#bf8700", false);
    if (focus && focus.visible) {
      ctx.strokeStyle = "#1f2328"; ctx.lineWidth = 2.5 / cam.k; ctx.beginPath();
      ctx.arc(focus.x, focus.y, radius(focus) + 4 / cam.k, 0, 2 * Math.PI); ctx.stroke();
    }
    drawLabels(near, focus);
    drawnNodes = shownCount; drawnEdges = shownEdges.length;
    updateStats();
  }

  function memberSet(c) {
    var set = { nodes: new Set(c.members), edges: new Set() };
    edges.forEach(function (e) { if (set.nodes.has(e.a) && set.nodes.has(e.b)) set.edges.add(e); });
    return set;
  }

  function focusSet(n) {
    var set = { nodes: new Set([n]), edges: new Set() };
    n.edges.forEach(function (e) { set.edges.add(e); set.nodes.add(e.a); set.nodes.add(e.b); });
    return set;
  }

  function drawLabels(near, focus) {
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.font = "12px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    ctx.lineJoin = "round";
    var placed = [], shown = 0, discs = discGrid();
    var wanted = [];
    if (focus && focus.visible) wanted.push(focus);
    if (near) near.nodes.forEach(function (n) { if (n !== focus && n.visible) wanted.push(n); });
    wanted = wanted.concat(leaders, byDegree);
    // labels by importance at the current zoom: about one per 14000 square pixels when the whole graph is in
    // view, more as one zooms in (the most connected first), never more than LABELS
    var budget = Math.min(LABELS, Math.max(12, Math.round(width * height / 14000 * Math.pow(cam.k / fitK, 2))));
    var labelled = new Set();
    for (var i = 0; i < wanted.length && shown < budget && i < 4000; i++) {
      var n = wanted[i];
      if (!n.visible || (near && !near.nodes.has(n)) || labelled.has(n)) continue;
      labelled.add(n);
      var sx = cam.x + n.x * cam.k, sy = cam.y + n.y * cam.k, r = radius(n) * cam.k;
      if (sx < -50 || sy < -10 || sx > width + 50 || sy > height + 10) continue;
      var important = n === focus;
      if (!important && r < 2.5 && !near) continue;
      if (n.label === undefined) {  // measured once: the font never changes
        n.label = n.name.length > 40 ? n.name.slice(0, 39) + "…" : n.name;
        n.labelWidth = ctx.measureText(n.label).width;
      }
      var box = labelBox(n, sx, sy, r, important ? [] : placed, discs);
      if (!box) continue;
      placed.push(box); shown++;
      var ly = (box[1] + box[3]) / 2;
      ctx.lineWidth = 3; ctx.strokeStyle = "rgba(255,255,255,0.9)"; ctx.strokeText(n.label, box[0], ly);
      ctx.fillStyle = important ? "#000" : "#24292f"; ctx.fillText(n.label, box[0], ly);
    }
    $("gg-stats").setAttribute("data-labels", String(shown));
  }

  function overlaps(a, b) { return !(a[2] < b[0] || a[0] > b[2] || a[3] < b[1] || a[1] > b[3]); }

  // Right of the node, else left, above or below: the first place that no label drawn before takes and
  // that covers no other node, else the first that no label takes (a dense graph has no free place).
  function labelBox(n, sx, sy, r, placed, discs) {
    var w = n.labelWidth, gap = r + 3;
    var spots = [[sx + gap, sy], [sx - gap - w, sy], [sx - w / 2, sy - gap - 6], [sx - w / 2, sy + gap + 6]];
    for (var pass = discs ? 0 : 1; pass < 2; pass++) {
      for (var k = 0; k < spots.length; k++) {
        var box = [spots[k][0], spots[k][1] - 8, spots[k][0] + w, spots[k][1] + 8];
        if (placed.some(function (p) { return overlaps(box, p); })) continue;
        if (pass === 0 && coversDisc(discs, box, n)) continue;
        return box;
      }
    }
    return null;
  }

  var DISC_CELL = 64, DISC_MAX = 2000;

  // the screen boxes of the nodes on screen, in grid cells; null when too many for labels to avoid
  function discGrid() {
    var grid = new Map(), count = 0;
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (!n.visible) continue;
      var sx = cam.x + n.x * cam.k, sy = cam.y + n.y * cam.k, r = radius(n) * cam.k;
      if (sx < -r || sy < -r || sx > width + r || sy > height + r) continue;
      if (++count > DISC_MAX) return null;
      var d = [sx - r, sy - r, sx + r, sy + r, n];
      for (var cx = Math.floor(d[0] / DISC_CELL); cx <= Math.floor(d[2] / DISC_CELL); cx++) {
        for (var cy = Math.floor(d[1] / DISC_CELL); cy <= Math.floor(d[3] / DISC_CELL); cy++) {
          var key = cx + "," + cy;
          if (!grid.has(key)) grid.set(key, []);
          grid.get(key).push(d);
        }
      }
    }
    return grid;
  }

  function coversDisc(grid, box, own) {
    for (var cx = Math.floor(box[0] / DISC_CELL); cx <= Math.floor(box[2] / DISC_CELL); cx++) {
      for (var cy = Math.floor(box[1] / DISC_CELL); cy <= Math.floor(box[3] / DISC_CELL); cy++) {
        var cell = grid.get(cx + "," + cy);
        if (cell && cell.some(function (d) { return d[4] !== own && overlaps(box, d); })) return true;
      }
    }
    return false;
  }

  function updateStats() {
    var el = $("gg-stats");
    el.setAttribute("data-nodes", String(drawnNodes));
    el.setAttribute("data-edges", String(drawnEdges));
    var text = drawnNodes.toLocaleString() + " nodes · " + drawnEdges.toLocaleString() + " edges";
    if (drawnNodes < data.total.nodes || drawnEdges < data.total.edges) {
      text += " (of " + data.total.nodes.toLocaleString() + " · " + data.total.edges.toLocaleString() + ")";
    }
    el.textContent = text;
    if (!firstDrawn) {  // the next frame starts once this one is on screen
      firstDrawn = true;
      requestAnimationFrame(function () { el.setAttribute("data-drawn-ms", String(Math.round(performance.now()))); });
    }
  }

  // ---- filters -----------------------------------------------------------------------------------------
  function applyFilters() {
    nodes.forEach(function (n) {
      n.visible = types[n.type].on && n.deg >= minDegree && (!onlyFlags || (n.flags & onlyFlags) !== 0);
    });
    if (autoFit) fit();
    redraw();
  }

  function buildSide() {
    var legend = $("gg-legend");
    types.forEach(function (t) {
      var label = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox"; box.checked = true;
      box.addEventListener("change", function () { t.on = box.checked; applyFilters(); });
      t.box = box;
      var sw = document.createElement("span");
      sw.className = "swatch"; sw.style.background = t.color;
      var name = document.createElement("span"); name.textContent = t.name;
      var count = document.createElement("span"); count.className = "count"; count.textContent = t.count;
      label.append(box, sw, name, count);
      legend.appendChild(label);
    });
    function setAll(on) { types.forEach(function (t) { t.on = on; t.box.checked = on; }); applyFilters(); }
    $("gg-types-all").addEventListener("click", function () { setAll(true); });
    $("gg-types-none").addEventListener("click", function () { setAll(false); });
    var slider = $("gg-degree");
    slider.max = String(maxDeg);
    slider.addEventListener("input", function () {
      minDegree = Number(slider.value); $("gg-degree-value").textContent = slider.value; applyFilters();
    });
    var flags = $("gg-flags");
    [[UNGROUNDED, "only ungrounded", "#cf222e", "name not found in its source chunks"],
     [CONFLICT, "only type conflicts", "#bf8700", "typed differently by different records"]].concat(data.schema ?
     [[OFF_SCHEMA, "only off schema", "#8250df", "a type or relation outside graph.schema (mode: flag)"]] : [])
     .forEach(function (f) {
      var count = nodes.filter(function (n) { return n.flags & f[0]; }).length;
      var label = document.createElement("label");
      label.title = f[3];
      var box = document.createElement("input");
      box.type = "checkbox"; box.disabled = count === 0;
      box.addEventListener("change", function () {
        onlyFlags = box.checked ? onlyFlags | f[0] : onlyFlags & ~f[0]; applyFilters();
      });
      var ring = document.createElement("span"); ring.className = "ring"; ring.style.borderColor = f[2];
      var name = document.createElement("span"); name.textContent = f[1];
      var c = document.createElement("span"); c.className = "count"; c.textContent = count;
      label.append(box, ring, name, c);
      flags.appendChild(label);
    });
    if (data.total.nodes > nodes.length) {
      var note = $("gg-note");
      note.hidden = false;
      note.textContent = "Showing the " + nodes.length.toLocaleString() + " nodes of highest degree out of " +
        data.total.nodes.toLocaleString() + " (and " + edges.length.toLocaleString() + " of " +
        data.total.edges.toLocaleString() + " edges). To draw more, raise output.view_max_nodes or run: graphglean view OUTPUT_DIR --max-nodes N";
    }
  }

  // ---- communities: colour by them, list them with their reports, show one --------------------------------
  function communityName(c) { return (reportOf[c.id] && reportOf[c.id].title) || "Community " + c.id; }

  function buildCommunities() {
    if (!communities.length) return;
    $("gg-communities-box").hidden = false;
    var toggle = $("gg-colour-community"), level = $("gg-level");
    for (var l = 0; l < levels; l++) {
      var opt = document.createElement("option");
      opt.value = String(l); opt.textContent = "level " + l + (l === 0 ? " (coarsest)" : "");
      level.appendChild(opt);
    }
    level.hidden = levels < 2;
    function apply() {
      colourBy = toggle.checked ? "community" : "type";
      colourLevel = Number(level.value || 0);
      communityColours(colourLevel);
      listCommunities();
      redraw();
    }
    toggle.addEventListener("change", apply);
    level.addEventListener("change", apply);
    if (data.grouped_for_layout) { $("gg-communities").hidden = true; $("gg-colour-label").lastChild.textContent = " colour by cluster"; }
    toggle.checked = reports.length > 0;
    apply();
  }

  function listCommunities() {
    var box = $("gg-communities");
    box.textContent = "";
    if (data.grouped_for_layout) return;
    var list = communities.filter(function (c) { return c.level === colourLevel && c.members.length; });
    list.sort(function (p, q) {
      var rp = reportOf[p.id] ? reportOf[p.id].rating || 0 : -1, rq = reportOf[q.id] ? reportOf[q.id].rating || 0 : -1;
      return rq - rp || q.members.length - p.members.length || p.id - q.id;
    });
    box.appendChild(shortList(el("div"), list, 40, function (c) {
      var row = el("a", "community");
      var sw = el("span", "swatch"); sw.style.background = communityColour[c.id] || OTHER;
      row.append(sw, el("span", null, communityName(c)), el("span", "count", String(c.size)));
      row.title = reportOf[c.id] ? reportOf[c.id].summary : "no report (below min_report_size, or it failed)";
      row.addEventListener("click", function () { showCommunity(c); });
      return row;
    }, null, "show all " + list.length));
  }

  function nodeLink(n) {
    var link = el("a", "node-link", n.name);
    link.addEventListener("click", function () { select(n, true); });
    return link;
  }

  function showCommunity(c) {
    selected = null; shownCommunity = c;
    var panel = $("gg-panel"), report = reportOf[c.id];
    panel.hidden = false; panel.textContent = "";
    resize();
    var close = el("button", "close", "×");
    close.addEventListener("click", function () { shownCommunity = null; select(null); panel.hidden = true; resize(); });
    panel.append(close, el("h2", null, communityName(c)));
    panel.append(el("span", "badge", "level " + c.level), el("span", "badge", c.size + " entities"));
    if (report && report.rating !== null && report.rating !== undefined) panel.appendChild(el("span", "badge", "rating " + report.rating));
    if (report) {
      panel.appendChild(el("p", "desc", report.summary));
      if (report.rating_explanation) panel.appendChild(el("p", "muted", report.rating_explanation));
      if (report.findings.length) panel.appendChild(el("h3", null, "Findings (" + report.findings.length + ")"));
      report.findings.forEach(function (f) {
        var box = el("div", "finding");
        box.append(el("b", null, f.summary), el("p", null, f.explanation));
        if (f.nodes.length) {
          var refs = el("div", "refs");
          f.nodes.forEach(function (i, k) { if (k) refs.appendChild(document.createTextNode(" · ")); refs.appendChild(nodeLink(nodes[i])); });
          box.appendChild(refs);
        }
        panel.appendChild(box);
      });
    } else panel.appendChild(el("p", "muted", "No report: the community is smaller than graph.communities.min_report_size, reports are off, or its report failed."));
    var parent = communityOf[c.parent];
    if (parent) {
      panel.appendChild(el("h3", null, "Part of"));
      var up = el("a", "node-link", communityName(parent));
      up.addEventListener("click", function () { showCommunity(parent); });
      panel.appendChild(up);
    }
    var subs = communities.filter(function (k) { return k.parent === c.id; });
    if (subs.length) {
      panel.appendChild(el("h3", null, "Sub-communities (" + subs.length + ")"));
      panel.appendChild(shortList(el("div"), subs, 20, function (k) {
        var row = el("a", "rel", communityName(k) + " · " + k.size);
        row.addEventListener("click", function () { showCommunity(k); });
        return row;
      }, null, "show all " + subs.length));
    }
    var members = c.members.slice().sort(function (p, q) { return q.deg - p.deg; });
    panel.appendChild(el("h3", null, "Entities (" + c.size + (members.length < c.size ? ", " + members.length + " drawn" : "") + ")"));
    panel.appendChild(shortList(el("div"), members, 30, function (n) { var row = el("span", "rel"); row.appendChild(nodeLink(n)); return row; },
                                null, "show all " + members.length));
    redraw();
  }

  function nodeCommunities(panel, n) {
    var mine = n.c.map(function (id) { return communityOf[id]; }).filter(Boolean);
    if (!mine.length || data.grouped_for_layout) return;
    panel.appendChild(el("h3", null, "Communities"));
    mine.forEach(function (c) {
      var row = el("a", "rel", "level " + c.level + ": " + communityName(c));
      row.addEventListener("click", function () { showCommunity(c); });
      panel.appendChild(row);
    });
  }

  // ---- search ------------------------------------------------------------------------------------------
  var search = $("gg-search"), matchList = $("gg-matches"), matches = [], active = 0;
  function findMatches(q) {
    q = q.trim().toLowerCase();
    if (!q) return [];
    var found = [];
    for (var i = 0; i < byDegree.length; i++) {
      var n = byDegree[i], names = [n.name].concat(n.aliases), best = null;
      for (var j = 0; j < names.length; j++) {
        var at = names[j].toLowerCase().indexOf(q);
        if (at >= 0) {
          var rank = at === 0 ? (names[j].length === q.length ? 0 : 1) : 2;
          if (!best || rank < best.rank) best = { node: n, via: j ? names[j] : null, rank: rank };
        }
      }
      if (best) found.push(best);
    }
    found.sort(function (p, q2) { return p.rank - q2.rank || q2.node.deg - p.node.deg; });
    return found.slice(0, 15);
  }
  function showMatches() {
    matchList.textContent = "";
    matches.forEach(function (m, i) {
      var li = document.createElement("li");
      if (i === active) li.className = "active";
      var sw = document.createElement("span"); sw.className = "swatch"; sw.style.background = colorOf(m.node);
      var name = document.createElement("span"); name.textContent = m.node.name;
      li.append(sw, name);
      if (m.via) { var via = document.createElement("span"); via.className = "via"; via.textContent = "alias: " + m.via; li.appendChild(via); }
      li.addEventListener("mousedown", function (ev) { ev.preventDefault(); choose(m.node); });
      matchList.appendChild(li);
    });
    if (search.value.trim() && !matches.length) {
      var none = document.createElement("li"); none.className = "muted"; none.textContent = "no match"; matchList.appendChild(none);
    }
    matchList.hidden = !search.value.trim();
  }
  function choose(n) {
    matchList.hidden = true;
    search.blur();
    select(n, true);
  }
  search.addEventListener("input", function () { matches = findMatches(search.value); active = 0; showMatches(); });
  search.addEventListener("keydown", function (ev) {
    if (ev.key === "ArrowDown") { active = Math.min(active + 1, matches.length - 1); showMatches(); ev.preventDefault(); }
    else if (ev.key === "ArrowUp") { active = Math.max(active - 1, 0); showMatches(); ev.preventDefault(); }
    else if (ev.key === "Enter" && matches.length) choose(matches[active].node);
    else if (ev.key === "Escape") { matchList.hidden = true; }
  });
  search.addEventListener("blur", function () { matchList.hidden = true; });
  search.addEventListener("focus", function () { if (search.value.trim()) showMatches(); });

  // ---- details panel -----------------------------------------------------------------------------------
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function select(n, center) {
    selected = n;
    if (n) shownCommunity = null;
    var panel = $("gg-panel");
    if (!n) { if (!shownCommunity) { panel.hidden = true; resize(); } redraw(); return; }
    panel.hidden = false;
    panel.textContent = "";
    resize();
    var close = el("button", "close", "×");
    close.title = "Close";
    close.addEventListener("click", function () { select(null); });
    panel.append(close, el("h2", null, n.name));
    var type = el("span", "badge");
    var sw = el("span", "swatch"); sw.style.background = colorOf(n);
    type.append(sw, document.createTextNode(types[n.type].name));
    panel.append(type, el("span", "badge", "degree " + n.deg));
    if (n.freq !== undefined) panel.appendChild(el("span", "badge", "records " + n.freq));
    if (!n.visible) panel.appendChild(el("div", "muted", "Hidden by the current filters."));
    if (n.flags & UNGROUNDED) panel.appendChild(el("span", "flag", "Ungrounded: the name occurs in none of its source chunks."));
    if (n.flags & CONFLICT) panel.appendChild(el("span", "flag conflict", "Type conflict: records typed it as " + (n.types || []).join(", ") + "."));
    if (n.flags & OFF_SCHEMA) panel.appendChild(el("span", "flag", "Off schema: its type or a relationship of it is not in graph.schema."));
    if (n.aliases.length) { panel.appendChild(el("h3", null, "Aliases")); panel.appendChild(el("div", null, n.aliases.join(" · "))); }
    if (n.desc) {
      panel.appendChild(el("h3", null, "Description"));
      var lines = n.desc.split("\n").filter(function (l) { return l.trim(); });
      panel.appendChild(shortList(el("div", "desc"), lines, 4, function (line) { return el("p", null, line); },
                                  null, "show all " + lines.length));
    }
    nodeCommunities(panel, n);
    sources(panel, n);
    relationships(panel, n);
    if (center && n.visible) {
      autoFit = false;
      cam.k = Math.max(cam.k, 1.2);
      cam.x = width / 2 - n.x * cam.k; cam.y = height / 2 - n.y * cam.k;
    }
    redraw();
  }

  function relationships(panel, n) {
    if (!n.edges.length) return;
    panel.appendChild(el("h3", null, "Relationships (" + n.edges.length + ")"));
    var list = n.edges.slice().sort(function (p, q) { return q.w - p.w; });
    panel.appendChild(shortList(el("div"), list, 30, function (e) {
      var other = e.a === n ? e.b : e.a, row = el("span", "rel");
      var arrow = data.directed ? (e.a === n ? "→ " : "← ") : "";
      var link = el("a", null, other.name);
      link.addEventListener("click", function () { select(other, true); });
      var about = e.desc.length > 200 ? e.desc.slice(0, 199) + "…" : e.desc;
      if (about !== e.desc) row.title = e.desc;
      var rel = e.rel ? " · " + e.rel + (e.off ? " (off schema)" : "") : "";
      row.append(document.createTextNode(arrow), link, el("span", "d", rel + " · " + e.w + (about ? " · " + about : "")));
      return row;
    }, null, "show all " + list.length));
  }

  // box shows the first `limit` items rendered by `render`, then a button that shows them all
  function shortList(box, items, limit, render, buttonClass, buttonText) {
    function show(upTo) {
      box.textContent = "";
      items.slice(0, upTo).forEach(function (item) { box.appendChild(render(item)); });
      if (items.length > upTo) {
        var more = el("button", buttonClass, buttonText);
        more.addEventListener("click", function () { show(items.length); });
        box.appendChild(more);
      }
    }
    show(limit);
    return box;
  }

  function highlighted(text, ranges, whole) {
    // ranges: flat [sentence start, sentence end, name start, name end, ...]
    var spans = [];
    for (var i = 0; i < ranges.length; i += 4) spans.push(ranges.slice(i, i + 4));
    spans.sort(function (p, q) { return p[0] - q[0] || p[2] - q[2]; });
    var sentences = [];
    spans.forEach(function (s) {
      var last = sentences[sentences.length - 1];
      if (last && s[0] < last.end) { last.end = Math.max(last.end, s[1]); last.names.push([s[2], s[3]]); }
      else sentences.push({ start: s[0], end: s[1], names: [[s[2], s[3]]] });
    });
    var out = document.createDocumentFragment(), pos = 0;
    sentences.forEach(function (s, k) {
      if (whole) out.appendChild(document.createTextNode(text.slice(pos, s.start)));
      else if (k || s.start > 0) out.appendChild(el("span", "gap", k ? " … " : "… "));
      var mark = el("mark", "s"), at = s.start;
      s.names.sort(function (p, q) { return p[0] - q[0]; }).forEach(function (m) {
        if (m[0] < at) return;
        mark.appendChild(document.createTextNode(text.slice(at, m[0])));
        mark.appendChild(el("b", null, text.slice(m[0], m[1])));
        at = m[1];
      });
      mark.appendChild(document.createTextNode(text.slice(at, s.end)));
      out.appendChild(mark);
      pos = s.end;
    });
    if (whole) out.appendChild(document.createTextNode(text.slice(pos)));
    else if (pos < text.length && sentences.length) out.appendChild(el("span", "gap", " …"));
    return out;
  }

  function sources(panel, n) {
    if (!n.src.length) {
      if (!data.chunks_known) panel.appendChild(el("p", "muted", "Chunk texts are not in this output folder (chunks.jsonl), so source sentences cannot be shown."));
      return;
    }
    panel.appendChild(el("h3", null, "Source chunks (" + n.src.length + ")"));
    panel.appendChild(shortList(el("div"), n.src, 5, sourceChunk, "all-chunks", "show all " + n.src.length + " chunks"));
  }

  function sourceChunk(entry) {
    var chunk = data.chunks[entry[0]], ranges = entry[1];
    var box = el("div", "chunk"), head = el("div", "head");
    head.appendChild(el("span", null, (chunk.doc || "document") + " · chunk " + chunk.index));
    head.appendChild(el("span", null, ranges.length / 4 + " mention" + (ranges.length === 4 ? "" : "s")));
    var text = el("div", "text"), whole = !ranges.length;
    var toggle = el("button", null, "whole chunk");
    function render() {
      text.textContent = "";
      text.appendChild(whole ? highlighted(chunk.text, ranges, true) : highlighted(chunk.text, ranges, false));
      toggle.textContent = whole ? "mentions only" : "whole chunk";
    }
    toggle.addEventListener("click", function () { whole = !whole; render(); });
    if (ranges.length) head.appendChild(toggle);
    render();
    box.append(head, text);
    return box;
  }

  // ---- pointer -----------------------------------------------------------------------------------------
  function nodeAt(px, py) {
    var p = toWorld(px, py), best = null, bestD = Infinity, slack = 3 / cam.k;
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (!n.visible) continue;
      var d = Math.hypot(n.x - p[0], n.y - p[1]);
      if (d <= radius(n) + slack && d < bestD) { best = n; bestD = d; }
    }
    return best;
  }
  var press = null;
  canvas.addEventListener("pointerdown", function (ev) {
    var n = nodeAt(ev.offsetX, ev.offsetY);
    press = { x: ev.offsetX, y: ev.offsetY, node: n, moved: false, cam: { x: cam.x, y: cam.y } };
    canvas.setPointerCapture(ev.pointerId);
    canvas.style.cursor = "grabbing";
  });
  canvas.addEventListener("pointermove", function (ev) {
    if (press) {
      var dx = ev.offsetX - press.x, dy = ev.offsetY - press.y;
      if (!press.moved && Math.hypot(dx, dy) < 4) return;
      press.moved = true; autoFit = false;
      if (press.node) {
        var p = toWorld(ev.offsetX, ev.offsetY);
        dragging = press.node;
        dragging.x = p[0]; dragging.y = p[1];
        layout.pin(dragging);
        if (!layoutRunning) { layoutRunning = true; layoutStarted = performance.now(); $("gg-layout").textContent = "Pause layout"; }
        redraw();
      } else {
        cam.x = press.cam.x + dx; cam.y = press.cam.y + dy; redraw();
      }
      return;
    }
    var h = nodeAt(ev.offsetX, ev.offsetY);
    canvas.style.cursor = h ? "pointer" : "grab";
    if (h !== hovered) { hovered = h; redraw(); }
  });
  function release(ev) {
    if (!press) return;
    if (!press.moved) select(press.node, false);
    if (dragging) { layout.unpin(dragging); dragging = null; }
    press = null;
    canvas.style.cursor = "grab";
  }
  canvas.addEventListener("pointerup", release);
  canvas.addEventListener("pointercancel", release);
  canvas.addEventListener("pointerleave", function () { if (!press && hovered) { hovered = null; redraw(); } });
  canvas.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    autoFit = false;
    var dy = ev.deltaY * (ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? 400 : 1);  // lines, pages -> pixels
    var k = Math.min(40, Math.max(0.01, cam.k * Math.pow(1.0015, -dy)));
    var p = toWorld(ev.offsetX, ev.offsetY);
    cam.k = k; cam.x = ev.offsetX - p[0] * k; cam.y = ev.offsetY - p[1] * k;
    redraw();
  }, { passive: false });

  $("gg-fit").addEventListener("click", function () { autoFit = true; fit(); redraw(); });
  $("gg-layout").addEventListener("click", function () {
    layoutRunning = !layoutRunning;
    if (layoutRunning) layoutStarted = performance.now();
    layout.run(layoutRunning);
    $("gg-layout").textContent = layoutRunning ? "Pause layout" : "Resume layout";
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && document.activeElement !== search) { shownCommunity = null; select(null); }
    if (ev.key === "/" && document.activeElement !== search) { ev.preventDefault(); search.focus(); }
  });

  buildSide();
  buildCommunities();
  new ResizeObserver(resize).observe(canvas.parentNode);
  resize();
})();
