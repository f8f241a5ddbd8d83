// tribo replay viewer: one canvas per engine, a shared time slider and camera, flat-shaded
// shapes drawn from the recorded link poses (painter's algorithm on a 2-D canvas), contact forces
// as arrows, and pressure maps of distributed contact patches. No dependencies.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('replay-data').textContent);
  var runs = data.runs;
  var views = document.getElementById('views');
  var slider = document.getElementById('time');
  var clock = document.getElementById('clock');
  var playButton = document.getElementById('play');
  var legend = document.getElementById('legend');

  // ---- vectors and quaternions ([w, x, y, z]) ----
  function add(a, b) { return [a[0] + b[0], a[1] + b[1], a[2] + b[2]]; }
  function sub(a, b) { return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]; }
  function scale(a, s) { return [a[0] * s, a[1] * s, a[2] * s]; }
  function dot(a, b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
  function cross(a, b) { return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; }
  function norm(a) { var n = Math.sqrt(dot(a, a)); return n > 0 ? scale(a, 1 / n) : [0, 0, 0]; }
  // v' = v + 2w (q×v) + 2 q×(q×v), q the vector part (rotation of v by a unit quaternion).
  function rotate(q, v) {
    var u = [q[1], q[2], q[3]];
    var t = scale(cross(u, v), 2);
    return add(add(v, scale(t, q[0])), cross(u, t));
  }
  function qmul(a, b) {
    return [a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
      a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
      a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
      a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]];
  }

  // ---- meshes in the shape's own frame (Cylinder, Capsule, Cone along +Y) ----
  var SEGMENTS = 20;
  // Surface of revolution about +Y of a profile [[radius, y], ...] from top to bottom.
  function revolve(profile) {
    var tris = [];
    for (var i = 0; i + 1 < profile.length; i++) {
      for (var j = 0; j < SEGMENTS; j++) {
        var a0 = 2 * Math.PI * j / SEGMENTS, a1 = 2 * Math.PI * (j + 1) / SEGMENTS;
        var p = function (k, a) { return [profile[k][0] * Math.cos(a), profile[k][1], profile[k][0] * Math.sin(a)]; };
        tris.push([p(i, a0), p(i, a1), p(i + 1, a1)]);
        tris.push([p(i, a0), p(i + 1, a1), p(i + 1, a0)]);
      }
    }
    return tris;
  }
  function arc(r, y0, from, to, n) {
    var out = [];
    for (var i = 0; i <= n; i++) {
      var th = from + (to - from) * i / n;
      out.push([r * Math.sin(th), y0 + r * Math.cos(th)]);
    }
    return out;
  }
  function boxMesh(s) {
    var x = s[0] / 2, y = s[1] / 2, z = s[2] / 2, tris = [];
    var c = [[-x, -y, -z], [x, -y, -z], [x, y, -z], [-x, y, -z], [-x, -y, z], [x, -y, z], [x, y, z], [-x, y, z]];
    [[0, 1, 2, 3], [4, 5, 6, 7], [0, 1, 5, 4], [2, 3, 7, 6], [1, 2, 6, 5], [0, 3, 7, 4]].forEach(function (f) {
      tris.push([c[f[0]], c[f[1]], c[f[2]]]);
      tris.push([c[f[0]], c[f[2]], c[f[3]]]);
    });
    return tris;
  }
  // Triangles with outward winding (the shapes are convex around their origin), degenerate ones dropped.
  function orient(tris) {
    var out = [];
    tris.forEach(function (t) {
      var n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
      if (dot(n, n) < 1e-20) { return; }
      var centroid = scale(add(add(t[0], t[1]), t[2]), 1 / 3);
      out.push(dot(n, centroid) < 0 ? [t[0], t[2], t[1]] : t);
    });
    return out;
  }
  // A mesh shape as given (flat vertex coordinates, flat triangle indices), winding kept.
  function meshTriangles(v, t) {
    var tris = [];
    var p = function (i) { return [v[3 * i], v[3 * i + 1], v[3 * i + 2]]; };
    for (var k = 0; k + 2 < t.length; k += 3) { tris.push([p(t[k]), p(t[k + 1]), p(t[k + 2])]); }
    return tris;
  }
  function mesh(shape, trim) {
    var r = shape.radius, h = shape.height;
    switch (shape.kind) {
      case 'box': return orient(boxMesh(shape.size.map(function (v) { return Math.min(v, trim); })));
      case 'sphere': return orient(revolve(arc(r, 0, 0, Math.PI, 12)));
      case 'cylinder': return orient(revolve([[0, h / 2], [r, h / 2], [r, -h / 2], [0, -h / 2]]));
      case 'capsule': return orient(revolve(arc(r, h / 2, 0, Math.PI / 2, 6).concat(arc(r, -h / 2, Math.PI / 2, Math.PI, 6))));
      case 'cone': return orient(revolve([[0, h / 2], [r, -h / 2], [0, -h / 2]]));
      case 'mesh': return meshTriangles(shape.vertices, shape.triangles);
      default: return [];
    }
  }

  // ---- scene layout ----
  var links = [];  // {body, link, shapes: [{tris, pose, color}]}
  data.bodies.forEach(function (b, bi) {
    b.links.forEach(function (l, li) { links.push({ body: bi, link: li, name: b.name + '.' + l.name, shapes: l.shapes }); });
  });
  function linkPose(frame, k) {
    var o = 7 * k;
    return { p: [frame[o], frame[o + 1], frame[o + 2]], q: [frame[o + 3], frame[o + 4], frame[o + 5], frame[o + 6]] };
  }
  // Bounds of every link origin over every frame: the camera frames them.
  var lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  var moving = links.map(function () { return false; });
  runs.forEach(function (run) {
    run.poses.forEach(function (frame) {
      links.forEach(function (l, k) {
        var p = linkPose(frame, k).p;
        for (var i = 0; i < 3; i++) { lo[i] = Math.min(lo[i], p[i]); hi[i] = Math.max(hi[i], p[i]); }
        var first = run.poses[0];
        for (var j = 7 * k; j < 7 * k + 7; j++) { if (frame[j] !== first[j]) { moving[k] = true; } }
      });
    });
  });
  if (!isFinite(lo[0])) { lo = [-1, -1, -1]; hi = [1, 1, 1]; }
  var centre = scale(add(lo, hi), 0.5);
  var radius = Math.max(0.5 * Math.sqrt(dot(sub(hi, lo), sub(hi, lo))), 0.05);
  var smallest = Infinity;
  links.forEach(function (l) {
    l.shapes.forEach(function (s) {
      var extent = s.kind === 'box' ? 0.5 * Math.max.apply(null, s.size)
        : s.kind === 'mesh' ? s.extent : (s.radius + 0.5 * (s.height || 0));
      if (extent < smallest) { smallest = extent; }
    });
  });
  if (isFinite(smallest)) { radius = Math.max(radius + smallest, 4 * smallest); }
  // Large boxes (a floor) are drawn trimmed to the scene's neighbourhood.
  var trim = 3 * radius;
  links.forEach(function (l) {
    l.meshes = l.shapes.map(function (s) { return { tris: mesh(s, trim), pose: s.pose, color: s.color }; });
  });

  // ---- camera (z up), shared by all views ----
  var camera = { yaw: -Math.PI / 2 + 0.5, pitch: 0.4, distance: 3.6 * radius, target: centre };
  function cameraBasis() {
    var cp = Math.cos(camera.pitch);
    var eye = add(camera.target, scale([cp * Math.cos(camera.yaw), cp * Math.sin(camera.yaw), Math.sin(camera.pitch)], camera.distance));
    var f = norm(sub(camera.target, eye));
    var r = norm(cross(f, [0, 0, 1]));
    var u = cross(r, f);
    return { eye: eye, f: f, r: r, u: u };
  }

  // ---- forces: one arrow scale for all engines ----
  var maxForce = 0;
  runs.forEach(function (run) {
    run.contacts.forEach(function (c) {
      for (var i = 0; i + 5 < c.length; i += 6) { maxForce = Math.max(maxForce, Math.hypot(c[i + 3], c[i + 4], c[i + 5])); }
    });
  });
  var arrowLength = 0.5 * radius;
  var forceScale = maxForce > 0 ? arrowLength / maxForce : 0;
  if (maxForce > 0) {
    legend.textContent = 'arrow of ' + arrowLength.toPrecision(2) + ' m = ' + maxForce.toPrecision(3) + ' N (largest contact force)';
  }

  // ---- views ----
  var width = Math.max(240, Math.min(620, Math.floor((views.clientWidth || 1200) / Math.max(runs.length, 1)) - 12));
  var height = Math.round(0.72 * width);
  var dpr = window.devicePixelRatio || 1;
  var tMax = 0;
  runs.forEach(function (run) { if (run.times.length) { tMax = Math.max(tMax, run.times[run.times.length - 1]); } });
  runs.forEach(function (run) {
    var box = document.createElement('div');
    box.className = 'view';
    var title = document.createElement('h3');
    title.textContent = run.engine;
    var canvas = document.createElement('canvas');
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.width = width + 'px';
    canvas.style.height = height + 'px';
    box.appendChild(title);
    box.appendChild(canvas);
    run.canvas = canvas;
    // Pressure maps: each sphere a lattice cell at its rest position in the pad frame (x right,
    // y up), one colour scale per engine (its largest pressure), a colour bar beside each map.
    run.padPeak = 0;
    run.pads.forEach(function (pad) { run.padPeak = Math.max(run.padPeak, pad.peak); });
    var padList = document.createElement('div');
    padList.className = 'pads';
    padList.style.maxWidth = width + 'px';
    run.pads.forEach(function (pad) {
      var holder = document.createElement('div');
      holder.className = 'pad';
      holder.style.maxWidth = (110 + 64) + 'px';
      var half = pad.cell / 2, x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      pad.x.forEach(function (x, n) {
        x0 = Math.min(x0, x - half); x1 = Math.max(x1, x + half);
        y0 = Math.min(y0, pad.y[n] - half); y1 = Math.max(y1, pad.y[n] + half);
      });
      if (!isFinite(x0)) { x0 = y0 = -1; x1 = y1 = 1; }
      var s = 110 / Math.max(x1 - x0, y1 - y0, 1e-9);
      pad.layout = { x0: x0, y1: y1, s: s, w: Math.ceil((x1 - x0) * s), h: Math.ceil((y1 - y0) * s), bar: 64 };
      var c = document.createElement('canvas');
      c.width = pad.layout.w + pad.layout.bar;
      c.height = Math.max(pad.layout.h, 90);
      c.className = 'pad-map';
      var label = document.createElement('span');
      label.textContent = pad.title + ', pressure (peak ' + Math.round(pad.peak) + ' Pa)';
      var nowLabel = document.createElement('span');
      nowLabel.className = 'pad-now';
      var text = document.createElement('div');
      text.appendChild(label);
      text.appendChild(document.createElement('br'));
      text.appendChild(nowLabel);
      holder.appendChild(c);
      holder.appendChild(text);
      padList.appendChild(holder);
      pad.canvas = c;
      pad.now = nowLabel;
    });
    if (run.pads.length) { box.appendChild(padList); }
    views.appendChild(box);
  });

  // Index of the last frame at or before t.
  function frameAt(times, t) {
    var a = 0, b = times.length - 1;
    if (b < 0) { return -1; }
    if (t >= times[b]) { return b; }
    while (a < b) {
      var m = (a + b + 1) >> 1;
      if (times[m] <= t + 1e-12) { a = m; } else { b = m - 1; }
    }
    return a;
  }

  function shade(color, light) {
    return 'rgb(' + color.map(function (c) { return Math.round(255 * Math.min(1, c * light)); }).join(',') + ')';
  }

  // Pressure colour: dark blue → red → yellow as pressure rises from 0 to the pad's peak.
  function heat(x) {
    var stops = [[20, 20, 60], [120, 30, 140], [220, 60, 40], [250, 220, 60]];
    x = Math.max(0, Math.min(1, x)) * (stops.length - 1);
    var i = Math.min(stops.length - 2, Math.floor(x)), f = x - i;
    return 'rgb(' + [0, 1, 2].map(function (k) { return Math.round(stops[i][k] + f * (stops[i + 1][k] - stops[i][k])); }).join(',') + ')';
  }

  function drawRun(run, t) {
    var ctx = run.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#f7f8fa';
    ctx.fillRect(0, 0, width, height);
    var k = frameAt(run.times, t);
    if (k < 0) {
      ctx.fillStyle = '#555';
      ctx.fillText('no replay recorded', 10, 20);
      return;
    }
    var frame = run.poses[k];
    var cam = cameraBasis();
    var focal = 0.5 * height / Math.tan(20 * Math.PI / 180);
    var near = 1e-3 * camera.distance;
    function project(p) {
      var d = sub(p, cam.eye);
      var z = dot(d, cam.f);
      if (z < near) { return null; }
      return [width / 2 + focal * dot(d, cam.r) / z, height / 2 - focal * dot(d, cam.u) / z, z];
    }
    var light = norm(add(add(scale(cam.f, -1), scale(cam.u, 0.8)), scale(cam.r, -0.4)));
    var faces = [];
    links.forEach(function (l, li) {
      var lp = linkPose(frame, li);
      l.meshes.forEach(function (m) {
        var q = qmul(lp.q, m.pose.slice(3, 7));
        var origin = add(lp.p, rotate(lp.q, m.pose.slice(0, 3)));
        m.tris.forEach(function (tri) {
          var w = tri.map(function (v) { return add(origin, rotate(q, v)); });
          var n = norm(cross(sub(w[1], w[0]), sub(w[2], w[0])));
          var centroid = scale(add(add(w[0], w[1]), w[2]), 1 / 3);
          if (dot(n, sub(centroid, cam.eye)) >= 0) { return; }
          var s = w.map(project);
          if (!s[0] || !s[1] || !s[2]) { return; }
          faces.push({ s: s, depth: (s[0][2] + s[1][2] + s[2][2]) / 3, layer: moving[li] ? 1 : 0,
            fill: shade(m.color, 0.35 + 0.65 * Math.max(0, dot(n, light))) });
        });
      });
    });
    // Still shapes (floor, walls) first, then moving ones; far to near within each.
    faces.sort(function (a, b) { return a.layer - b.layer || b.depth - a.depth; });
    faces.forEach(function (f) {
      ctx.beginPath();
      ctx.moveTo(f.s[0][0], f.s[0][1]);
      ctx.lineTo(f.s[1][0], f.s[1][1]);
      ctx.lineTo(f.s[2][0], f.s[2][1]);
      ctx.closePath();
      ctx.fillStyle = f.fill;
      ctx.strokeStyle = f.fill;
      ctx.lineWidth = 0.6;
      ctx.fill();
      ctx.stroke();
    });
    var contacts = run.contacts[k] || [];
    ctx.strokeStyle = '#0a7d2c';
    ctx.fillStyle = '#0a7d2c';
    ctx.lineWidth = 2.5;
    for (var i = 0; i + 5 < contacts.length; i += 6) {
      var p = [contacts[i], contacts[i + 1], contacts[i + 2]];
      var tip = add(p, scale([contacts[i + 3], contacts[i + 4], contacts[i + 5]], forceScale));
      var a = project(p), b = project(tip);
      if (!a || !b) { continue; }
      var dx = b[0] - a[0], dy = b[1] - a[1], len = Math.hypot(dx, dy);
      ctx.beginPath();
      ctx.arc(a[0], a[1], 3, 0, 2 * Math.PI);
      ctx.fill();
      if (len < 1) { continue; }
      var ux = dx / len, uy = dy / len, head = Math.min(10, 0.4 * len);
      ctx.beginPath();
      ctx.moveTo(a[0], a[1]);
      ctx.lineTo(b[0], b[1]);
      ctx.stroke();
      ctx.beginPath();
      ctx.moveTo(b[0], b[1]);
      ctx.lineTo(b[0] - head * ux + 0.5 * head * uy, b[1] - head * uy - 0.5 * head * ux);
      ctx.lineTo(b[0] - head * ux - 0.5 * head * uy, b[1] - head * uy + 0.5 * head * ux);
      ctx.closePath();
      ctx.fill();
    }
    ctx.fillStyle = '#333';
    ctx.font = '12px sans-serif';
    ctx.fillText('t = ' + run.times[k].toFixed(3) + ' s', 8, height - 8);
    run.pads.forEach(function (pad) { drawPad(pad, t, run.padPeak); });
  }

  function drawPad(pad, t, top) {
    var pc = pad.canvas.getContext('2d'), L = pad.layout;
    var j = frameAt(pad.times, t);
    var values = j >= 0 ? pad.values[j] : [];
    pc.fillStyle = '#fff';
    pc.fillRect(0, 0, pad.canvas.width, pad.canvas.height);
    pc.fillStyle = '#e4e4e8';
    pc.fillRect(0, 0, L.w, L.h);
    var size = Math.max(1, Math.ceil(pad.cell * L.s));
    var highest = 0;
    pad.x.forEach(function (x, n) {
      var v = values[n] || 0;
      highest = Math.max(highest, v);
      pc.fillStyle = heat(top > 0 ? v / top : 0);
      pc.fillRect(Math.floor((x - pad.cell / 2 - L.x0) * L.s), Math.floor((L.y1 - pad.y[n] - pad.cell / 2) * L.s), size, size);
    });
    // Colour bar: 0 at the bottom, the engine's largest pressure at the top.
    var bx = L.w + 8, bh = pad.canvas.height - 16;
    for (var k = 0; k < bh; k++) {
      pc.fillStyle = heat(1 - k / bh);
      pc.fillRect(bx, 8 + k, 10, 1);
    }
    pc.fillStyle = '#333';
    pc.font = '10px sans-serif';
    pc.fillText(top >= 1000 ? (top / 1000).toPrecision(3) + ' kPa' : top.toPrecision(3) + ' Pa', bx + 13, 16, L.bar - 14);
    pc.fillText('0 Pa', bx + 13, 8 + bh, L.bar - 14);
    pad.now.textContent = 't = ' + (j >= 0 ? pad.times[j].toFixed(3) : '0.000') + ' s: ' +
      (values.length ? 'max ' + Math.round(highest) + ' Pa, ' + (pad.forces[j] || 0).toPrecision(3) + ' N' : 'no contact');
  }

  var now = 0;
  function drawAll() {
    runs.forEach(function (run) { drawRun(run, now); });
    clock.textContent = now.toFixed(3) + ' s';
  }
  function setTime(t) {
    now = Math.max(0, Math.min(tMax, t));
    slider.value = tMax > 0 ? String(Math.round(1000 * now / tMax)) : '0';
    drawAll();
  }
  slider.addEventListener('input', function () { now = tMax * Number(slider.value) / 1000; drawAll(); });

  var playing = false, last = 0;
  function tick(stamp) {
    if (!playing) { return; }
    if (last) { setTime(now + (stamp - last) / 1000); }
    last = stamp;
    if (now >= tMax) { playing = false; playButton.textContent = 'play'; return; }
    window.requestAnimationFrame(tick);
  }
  playButton.addEventListener('click', function () {
    playing = !playing;
    playButton.textContent = playing ? 'pause' : 'play';
    if (playing) {
      if (now >= tMax) { now = 0; }
      last = 0;
      window.requestAnimationFrame(tick);
    }
  });

  var drag = null;
  runs.forEach(function (run) {
    run.canvas.addEventListener('mousedown', function (e) { drag = [e.clientX, e.clientY]; e.preventDefault(); });
    run.canvas.addEventListener('wheel', function (e) {
      camera.distance *= Math.exp(0.001 * e.deltaY);
      drawAll();
      e.preventDefault();
    }, { passive: false });
  });
  window.addEventListener('mouseup', function () { drag = null; });
  window.addEventListener('mousemove', function (e) {
    if (!drag) { return; }
    camera.yaw -= 0.01 * (e.clientX - drag[0]);
    camera.pitch = Math.max(-1.5, Math.min(1.5, camera.pitch + 0.01 * (e.clientY - drag[1])));
    drag = [e.clientX, e.clientY];
    drawAll();
  });

  var start = /[#&]t=([0-9.eE+-]+)/.exec(window.location.hash);
  setTime(start ? Number(start[1]) || 0 : 0);

  // Health for tests: how many distinct colours the first replay view shows.
  var colours = 0;
  var first = runs.filter(function (r) { return r.times.length; })[0];
  if (first) {
    var pixels = first.canvas.getContext('2d').getImageData(0, 0, first.canvas.width, first.canvas.height).data;
    var seen = {};
    for (var i = 0; i < pixels.length; i += 4 * 7) {
      var key = pixels[i] + ',' + pixels[i + 1] + ',' + pixels[i + 2];
      if (!seen[key]) { seen[key] = true; colours++; }
    }
  }
  // Pressure maps: their distinct colours, as an attribute of each map's canvas.
  runs.forEach(function (run) {
    run.pads.forEach(function (pad) {
      var px = pad.canvas.getContext('2d').getImageData(0, 0, pad.layout.w, pad.layout.h).data, seenPad = {}, n = 0;
      for (var i = 0; i < px.length; i += 4) {
        var key = px[i] + ',' + px[i + 1] + ',' + px[i + 2];
        if (!seenPad[key]) { seenPad[key] = true; n++; }
      }
      pad.canvas.setAttribute('data-colours', String(n));
    });
  });
  window.__tribo_report('replay-colours=' + colours);
})();
