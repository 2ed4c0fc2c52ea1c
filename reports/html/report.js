// The waitroom HTML report: reads the result embedded in #waitroom-data and draws it with uPlot.
// Runs offline (everything is inline). window.waitroomSelfCheck() tells a browser test what
// each chart drew.
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('waitroom-data').textContent);
  const R = D.result;
  const main = document.getElementById('report');
  const charts = [];
  // Charts fit the page: at most 900 px on screen, 680 px (an A4 or Letter page) in print.
  const WIDTH = Math.max(480, Math.min(900, (document.getElementById('report').clientWidth || 948) - 48));
  const PRINT_WIDTH = 680;

  // Okabe-Ito colours (distinguishable with colour blindness, and in grey print by dash): one per
  // class in the scenario's order, the same in every chart; everyone together is dark grey.
  const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#8C564B', '#F0E442'];
  const ALL = '#333333';
  // Series that are not a class (controller, backend, Redis) never borrow a class's colour.
  const OTHER = ['#6A3D9A', '#A6761D', '#555555'];
  // Values of a knob (not classes): dark to light, so the order reads without a legend.
  const SEQUENTIAL = ['#1b0c41', '#4a0c6b', '#781c6d', '#a52c60', '#cf4446', '#ed6925', '#fb9b06'];
  const classOrder = [];
  function colourOf(name) {
    if (name === 'all' || name === 'overall' || name === 'everyone') return ALL;
    let i = classOrder.indexOf(name);
    if (i < 0) { classOrder.push(name); i = classOrder.length - 1; }
    return PALETTE[i % PALETTE.length];
  }
  function dashOf(name) { return name === 'all' || name === 'overall' ? [6, 4] : undefined; }

  // ---- small DOM helpers ----
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k);
    return e;
  }
  function add(...kids) { for (const k of kids) main.append(k); }
  function h2(t) { add(el('h2', { text: t })); }
  function note(t) { add(el('p', { class: 'note', text: t })); }
  function missing(t) { add(el('p', { class: 'missing', text: t })); }
  function swatch(name) { const s = el('span', { class: 'swatch' }); s.style.background = colourOf(name); return s; }
  function table(head, rows, cls) {
    const t = el('table', cls ? { class: cls } : {});
    const tr = el('tr');
    for (const h of head) tr.append(el('th', { text: h }));
    t.append(el('thead', {}, tr));
    const tb = el('tbody');
    for (const r of rows) {
      const row = el('tr');
      for (const c of r) {
        if (c instanceof Node) row.append(el('td', {}, c));
        else if (c && typeof c === 'object') { const td = el('td', { class: c.cls || '', text: c.text }); if (c.swatch) td.prepend(swatch(c.swatch)); row.append(td); }
        else row.append(el('td', { text: c == null ? '–' : String(c) }));
      }
      tb.append(row);
    }
    t.append(tb);
    add(t);
    return t;
  }

  // ---- numbers and units ----
  const num = (x) => typeof x === 'number' && isFinite(x);
  function sig(x, digits) {
    if (!num(x)) return '–';
    const a = Math.abs(x);
    if (a < 1e-9) return '0';
    if (a >= 1e6) return x.toExponential(3);
    const d = Math.max(0, (digits || 4) - 1 - Math.floor(Math.log10(a)));
    return x.toFixed(Math.min(d, 6));
  }
  // One unit for a set of durations in seconds, chosen from the largest.
  function timeUnit(maxSeconds) {
    const m = Math.abs(maxSeconds || 0);
    if (m < 0.5) return { name: 'ms', div: 1e-3 };
    if (m < 300) return { name: 's', div: 1 };
    if (m < 3 * 3600) return { name: 'min', div: 60 };
    return { name: 'h', div: 3600 };
  }
  const trimZeros = (t) => (t.includes('.') && !t.includes('e') ? t.replace(/\.?0+$/, '') : t);
  // A duration in seconds in its own natural unit: 20 s, 2 min, 1.5 h.
  function duration(sec) {
    const u = timeUnit(sec * 1.0001);
    return `${trimZeros(sig(sec / u.div, 4))} ${u.name}`;
  }
  const pct = (x) => (num(x) ? trimZeros(sig(100 * x, 4)) + '%' : '–');
  // An estimate over its 95% interval, two lines in one cell.
  function ciCell(iv, f) {
    if (!iv || !iv.ci) return '–';
    const span = el('span', { class: 'est', text: f(iv.estimate) });
    return el('span', {}, span, el('br'), el('small', { text: `[${f(iv.ci[0])}, ${f(iv.ci[1])}]` }));
  }
  function ci(iv, f) {
    if (!iv || !iv.ci) return '–';
    return `${f(iv.estimate)} [${f(iv.ci[0])}, ${f(iv.ci[1])}]`;
  }
  const WAIT_METRICS = { mean_wait_s: 'mean', p50_wait_s: 'p50', p90_wait_s: 'p90', p95_wait_s: 'p95', p99_wait_s: 'p99', p999_wait_s: 'p99.9', max_wait_s: 'max' };
  const isWaitMetric = (m) => m in WAIT_METRICS;
  const isShare = (m) => /_share$|error_rate$/.test(m);

  // ---- charts ----
  // spec: {title, note, xLabel, yLabel, y2Label, xLog, yLog, x: [...], series: [{label, colour,
  // dash, width, y: [...], scale ('y' or 'y2'), points, bars, fill, band: [lo[], hi[]]}],
  // vlines: [{x, label, colour, dash}], hlines: [{y, label, colour, dash, scale}],
  // shade: [{from, to, colour}], xValues (tick labels), marks: [{x, y, label, colour}], yMin}
  function chart(spec) {
    const box = el('div', { class: 'chart' });
    add(box);
    if (spec.note) box.append(el('p', { class: 'note', text: spec.note }));
    const data = [spec.x];
    const series = [{ label: spec.xLabel, value: (u, v) => (v == null ? '–' : spec.xValues ? (spec.xValues[v] ?? '') : sig(v, 5)) }];
    const bands = [];
    let drawnPoints = 0;
    // A log axis cannot show 0 or less: such values are left out rather than drawn wrongly.
    const onLog = (ys, scale) => (spec.yLog && scale === 'y' ? ys.map((v) => (num(v) && v > 0 ? v : null)) : ys);
    for (const s of spec.series) {
      const scale = s.scale || 'y';
      s.y = onLog(s.y, scale);
      if (s.band) s.band = [onLog(s.band[0], scale), onLog(s.band[1], scale)];
      if (s.band) {
        // Two hidden-in-legend series bounding a filled band, then the line itself.
        const lo = data.length;
        data.push(s.band[0]);
        series.push({ label: s.label + ' 95% low', stroke: s.colour + '66', width: 1, scale, value: (u, v) => (v == null ? '–' : sig(v, 4)) });
        data.push(s.band[1]);
        series.push({ label: s.label + ' 95% high', stroke: s.colour + '66', width: 1, scale, value: (u, v) => (v == null ? '–' : sig(v, 4)) });
        bands.push({ series: [lo + 1, lo], fill: s.colour + '26' });
      }
      data.push(s.y);
      for (const v of s.y) if (num(v)) drawnPoints++;
      const ser = {
        label: s.label, stroke: s.colour, width: s.width || 2, dash: s.dash, scale, spanGaps: true,
        points: { show: !!s.points, size: s.points ? 7 : 0, fill: s.colour },
        value: (u, v) => (v == null ? '–' : sig(v, 4)),
      };
      if (s.fill) ser.fill = s.fill;
      if (s.bars) { ser.paths = uPlot.paths.bars({ size: [0.7, 60], align: 0 }); ser.fill = s.colour + 'cc'; ser.points = { show: false }; }
      if (s.whiskersOnly) { ser.paths = () => null; ser.points = { show: false }; }
      if (s.noLine) { ser.paths = () => null; ser.points = { show: true, size: 8, fill: s.colour, stroke: s.colour }; }
      series.push(ser);
    }
    const axisFont = '12px system-ui, sans-serif';
    const axes = [
      { label: spec.xLabel, stroke: '#222', font: axisFont, labelFont: '600 13px system-ui, sans-serif', grid: { stroke: '#e4e4e4', width: 1 }, ticks: { stroke: '#bbb' } },
      { label: spec.yLabel, stroke: '#222', font: axisFont, labelFont: '600 13px system-ui, sans-serif', grid: { stroke: '#e4e4e4', width: 1 }, ticks: { stroke: '#bbb' }, size: 64 },
    ];
    if (spec.xInteger) axes[0].incrs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
    if (spec.xValues) {
      axes[0].values = (u, splits) => splits.map((i) => (Number.isInteger(i) ? spec.xValues[i] ?? '' : ''));
      axes[0].splits = () => spec.xValues.map((_, i) => i);
    }
    if (spec.y2Label) axes.push({ label: spec.y2Label, scale: 'y2', side: 1, stroke: '#222', font: axisFont, labelFont: '600 13px system-ui, sans-serif', grid: { show: false }, size: 64 });
    // uPlot's own labels on a log axis round 0.0001 to "0": label each decade in full.
    const logTick = (u, splits) => splits.map((v) => (v == null ? '' : Math.abs(v) >= 1e5 ? v.toExponential(0) : String(+v.toPrecision(3))));
    if (spec.xLog) axes[0].values = logTick;
    if (spec.yLog) axes[1].values = logTick;
    const scales = { x: { time: false }, y: {} };
    if (spec.xRange) scales.x.range = () => spec.xRange;
    if (spec.xLog) scales.x.distr = 3;
    if (spec.yLog) scales.y.distr = 3;
    if (spec.xValues) scales.x.range = () => [-0.6, spec.xValues.length - 0.4];
    const wl = (spec.whiskers || []).flatMap((w) => [w.lo, w.hi]).filter(num);
    if (wl.length && !spec.yRange) {
      // The whiskers are drawn by hand: the axis must reach them too.
      scales.y.range = (u, lo, hi) => {
        const l = Math.min(lo ?? Infinity, ...wl), h = Math.max(hi ?? -Infinity, ...wl);
        const pad = Math.max(h - l, Math.abs(h) * 0.1, 1e-9) * 0.08;
        return [l - pad, h + pad];
      };
    } else if (spec.yRange) scales.y.range = () => spec.yRange;
    else if (spec.yMin != null) scales.y.range = (u, lo, hi) => { const l = Math.min(spec.yMin, lo ?? 0); const h = hi ?? 1; return [l, h + Math.max(h - l, 1e-9) * 0.06 || 1]; };
    // A limit beyond the data still gets drawn: the axes reach every vertical and horizontal line
    // (not a fixed range, nor the whiskers' own, nor a log axis's values of 0 or less).
    const reach = (vals, lo, hi, log) => {
      const vs = vals.filter((v) => num(v) && (!log || v > 0));
      if (!vs.length) return null;
      const vmin = Math.min(...vs), vmax = Math.max(...vs);
      let l = lo ?? vmin, h = hi ?? vmax;
      if (log) { if (vmin < l) l = vmin / 1.15; if (vmax > h) h = vmax * 1.15; }
      else { const pad = Math.max(Math.max(h, vmax) - Math.min(l, vmin), 1e-9) * 0.04; if (vmin < l) l = vmin - pad; if (vmax > h) h = vmax + pad; }
      return [l, h];
    };
    const vx = (spec.vlines || []).map((v) => v.x);
    if (vx.some(num) && !spec.xRange && !spec.xValues) {
      const inner = scales.x.range;
      scales.x.range = (u, lo, hi) => {
        const r = reach(vx, lo, hi, spec.xLog) || [lo, hi];
        if (inner) return inner(u, r[0], r[1]);
        return spec.xLog ? uPlot.rangeLog(r[0], r[1], 10, true) : [r[0], r[1]];
      };
    }
    const hy = (spec.hlines || []).filter((h) => (h.scale || 'y') === 'y').map((h) => h.y);
    if (hy.some(num) && !spec.yRange) {
      const inner = scales.y.range;
      scales.y.range = (u, lo, hi) => {
        const r = reach(hy, lo, hi, spec.yLog) || [lo, hi];
        if (inner) return inner(u, r[0], r[1]);
        return spec.yLog ? uPlot.rangeLog(r[0], r[1], 10, true) : uPlot.rangeNum(r[0], r[1], 0.1, true);
      };
    }
    if (spec.y2Label) scales.y2 = spec.y2Range ? { range: () => spec.y2Range } : { range: (u, lo, hi) => [0, (hi ?? 1) * 1.06 || 1] };
    // What the chart drew, for the browser test: each label's box (device pixels), and the
    // lines and labels it could not show.
    const rec = { title: spec.title, points: 0, u: null, labels: [], unlabelled: [], undrawn: [] };
    const drawOver = (u) => {
      const ctx = u.ctx;
      const dpr = devicePixelRatio;
      ctx.save();
      ctx.font = `${Math.round(11 * dpr)}px system-ui, sans-serif`;
      // uPlot leaves its own alignment set: the boxes below are measured from the left.
      ctx.textAlign = 'left';
      rec.labels = []; rec.unlabelled = []; rec.undrawn = [];
      // Labels never overlap: each takes the first of its candidate places that is inside the
      // plot and clear of every dot and label placed before it, or is left out (and listed).
      const taken = [];
      const bb = u.bbox;
      const inside = (r) => r.x >= bb.left - 1 && r.y >= bb.top - 1 && r.x + r.w <= bb.left + bb.width + 1 && r.y + r.h <= bb.top + bb.height + 1;
      const clear = (r) => taken.every((t) => r.x + r.w <= t.x || t.x + t.w <= r.x || r.y + r.h <= t.y || t.y + t.h <= r.y);
      const place = (text, candidates) => {
        for (const r of candidates) if (inside(r) && clear(r)) { taken.push(r); rec.labels.push({ text, x: r.x, y: r.y, w: r.w, h: r.h }); return r; }
        rec.unlabelled.push(text);
        return null;
      };
      const th = 14 * dpr;
      // Dots first (they mark data), then their labels, then the lines' labels around them.
      const dots = [];
      for (const m of spec.marks || []) {
        const x = u.valToPos(m.x, 'x', true), y = u.valToPos(m.y, 'y', true);
        if (!isFinite(x) || !isFinite(y)) continue;
        ctx.fillStyle = m.colour; ctx.strokeStyle = '#fff'; ctx.lineWidth = 1.5 * dpr;
        ctx.beginPath(); ctx.arc(x, y, 4.5 * dpr, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
        const rr = 5 * dpr;
        taken.push({ x: x - rr, y: y - rr, w: 2 * rr, h: 2 * rr });
        dots.push({ m, x, y });
      }
      for (const { m, x, y } of dots) {
        if (!m.label) continue;
        const lw = ctx.measureText(m.label).width, gap = 7 * dpr;
        const right = { x: x + gap, y: y - th / 2, w: lw, h: th }, left = { x: x - gap - lw, y: y - th / 2, w: lw, h: th };
        const above = { x: x - lw / 2, y: y - gap - th, w: lw, h: th }, below = { x: x - lw / 2, y: y + gap, w: lw, h: th };
        const r = place(m.label, m.left ? [left, right, below, above] : [right, left, above, below]);
        if (!r) continue;
        ctx.fillStyle = m.colour; ctx.textBaseline = 'top'; ctx.fillText(m.label, r.x, r.y + 1);
      }
      for (const v of spec.vlines || []) {
        const x = u.valToPos(v.x, 'x', true);
        if (!isFinite(x) || x < bb.left - 1 || x > bb.left + bb.width + 1) { rec.undrawn.push(v.label); continue; }
        ctx.strokeStyle = v.colour; ctx.lineWidth = 1.5 * dpr;
        ctx.setLineDash((v.dash || [6, 4]).map((d) => d * dpr));
        ctx.beginPath(); ctx.moveTo(x, bb.top); ctx.lineTo(x, bb.top + bb.height); ctx.stroke();
        ctx.setLineDash([]);
        // Beside the line on a white ground, from the top down: the first clear row on either side.
        const tw = ctx.measureText(v.label).width;
        const cands = [];
        for (let y = bb.top + 6 * dpr; y + th <= bb.top + bb.height; y += 8 * dpr)
          cands.push({ x: x + 4 * dpr, y, w: tw, h: th }, { x: x - 4 * dpr - tw, y, w: tw, h: th });
        const r = place(v.label, cands);
        if (!r) continue;
        ctx.fillStyle = 'rgba(255,255,255,0.85)'; ctx.fillRect(r.x - 2, r.y - 1, r.w + 4, r.h);
        ctx.fillStyle = v.colour; ctx.textBaseline = 'top'; ctx.fillText(v.label, r.x, r.y + 1);
      }
      for (const h of spec.hlines || []) {
        const y = u.valToPos(h.y, h.scale || 'y', true);
        if (!isFinite(y) || y < bb.top - 1 || y > bb.top + bb.height + 1) { rec.undrawn.push(h.label); continue; }
        ctx.strokeStyle = h.colour; ctx.lineWidth = 1.5 * dpr;
        ctx.setLineDash((h.dash || [6, 4]).map((d) => d * dpr));
        ctx.beginPath(); ctx.moveTo(bb.left, y); ctx.lineTo(bb.left + bb.width, y); ctx.stroke();
        ctx.setLineDash([]);
        // Above the line at its right end, else further left, else below it.
        const tw = ctx.measureText(h.label).width;
        const cands = [];
        for (let x = bb.left + bb.width - tw - 6 * dpr; x >= bb.left; x -= 24 * dpr)
          cands.push({ x, y: y - th - 1, w: tw, h: th }, { x, y: y + 2, w: tw, h: th });
        const r = place(h.label, cands);
        if (!r) continue;
        ctx.fillStyle = 'rgba(255,255,255,0.85)'; ctx.fillRect(r.x - 2, r.y, r.w + 4, r.h);
        ctx.fillStyle = h.colour; ctx.textBaseline = 'top'; ctx.fillText(h.label, r.x, r.y + 1);
      }
      for (const w of spec.hbars || []) {
        const y = u.valToPos(w.y, 'y', true), x0 = u.valToPos(w.lo, 'x', true), x1 = u.valToPos(w.hi, 'x', true);
        if (!isFinite(y) || !isFinite(x0) || !isFinite(x1)) continue;
        const cap = 5 * devicePixelRatio;
        ctx.strokeStyle = w.colour; ctx.lineWidth = 2.5 * devicePixelRatio;
        ctx.beginPath(); ctx.moveTo(Math.min(x0, x1 - 2), y); ctx.lineTo(Math.max(x1, x0 + 2), y);
        ctx.moveTo(x0, y - cap); ctx.lineTo(x0, y + cap); ctx.moveTo(x1, y - cap); ctx.lineTo(x1, y + cap); ctx.stroke();
      }
      for (const w of spec.whiskers || []) {
        const x = u.valToPos(w.x, 'x', true), y0 = u.valToPos(w.lo, 'y', true), y1 = u.valToPos(w.hi, 'y', true);
        if (!isFinite(x) || !isFinite(y0) || !isFinite(y1)) continue;
        ctx.strokeStyle = w.colour; ctx.lineWidth = 2 * devicePixelRatio;
        const cap = 6 * devicePixelRatio;
        ctx.beginPath(); ctx.moveTo(x, y0); ctx.lineTo(x, y1);
        ctx.moveTo(x - cap, y0); ctx.lineTo(x + cap, y0); ctx.moveTo(x - cap, y1); ctx.lineTo(x + cap, y1); ctx.stroke();
        if (num(w.mid)) {
          const ym = u.valToPos(w.mid, 'y', true);
          ctx.fillStyle = w.colour; ctx.beginPath(); ctx.arc(x, ym, 4.5 * devicePixelRatio, 0, 2 * Math.PI); ctx.fill();
        }
      }
      ctx.restore();
    };
    const drawUnder = (u) => {
      const ctx = u.ctx;
      for (const s of spec.shade || []) {
        const x0 = u.valToPos(s.from, 'x', true), x1 = u.valToPos(s.to, 'x', true);
        ctx.fillStyle = s.colour || 'rgba(27,127,59,0.12)';
        ctx.fillRect(Math.min(x0, x1), u.bbox.top, Math.abs(x1 - x0), u.bbox.height);
      }
    };
    const opts = {
      title: spec.title, width: WIDTH, height: spec.height || 340, scales, axes, series, bands,
      legend: { show: true, live: true },
      cursor: { drag: { x: true, y: false }, points: { size: 8 } },
      hooks: { drawClear: [drawUnder], draw: [drawOver] },
    };
    // Band edges are drawn faintly and kept out of the way in the legend.
    const u = new uPlot(opts, data, box);
    for (let i = 1; i < series.length; i++) {
      if (/ 95% (low|high)$/.test(series[i].label)) {
        const row = u.root.querySelectorAll('.u-legend .u-series')[i];
        if (row) row.style.display = 'none';
      }
    }
    const whiskerPoints = (spec.whiskers || []).filter((w) => num(w.lo) && num(w.hi)).length;
    rec.points = drawnPoints + whiskerPoints;
    rec.u = u;
    charts.push(rec);
    box.setAttribute('data-points', String(drawnPoints + whiskerPoints));
    return u;
  }

  // ---- header: what this is ----
  function scenarioOf() {
    if (R.scenario) return R.scenario;
    if (R.variants && R.variants[0]) return R.variants[0].scenario;
    if (R.scenarios && R.scenarios[0]) return R.scenarios[0].scenario;
    return null;
  }
  function header() {
    const sc = scenarioOf();
    const name = R.scenarios ? R.scenarios.map((s) => s.name).join(', ') : (sc && sc.name) || R.scenario_name || '';
    if (sc && sc.classes) for (const c of sc.classes) colourOf(c.name);
    const kindText = { run: 'single run', replications: 'independent replications', compare: 'comparison on common random numbers', sweep: 'parameter sweep', plan: 'capacity plan', check: 'SLA check', fit: 'fit of an event log' }[D.kind];
    const facts = [
      ['report', kindText],
      ['scenario', name || '–'],
      ['seed', R.seed ?? (sc && sc.seed) ?? (R.scenarios ? R.scenarios.map((s) => s.seed).join(', ') : '–')],
      ['replications', R.replications ?? (R.scenarios ? R.scenarios.map((s) => s.replications).join(', ') : R.replication != null ? `1 (replication ${R.replication})` : '1')],
    ];
    if (R.confidence) facts.push(['confidence', pct(R.confidence)]);
    facts.push(['computed by', R.tool ? `${R.tool.name} ${R.tool.version}` : 'waitroom (version not recorded in this result)']);
    facts.push(['report drawn by', `waitroom ${D.report_tool_version} with ${D.chart_library}`]);
    facts.push(['source', D.source]);
    const t = el('table', { class: 'facts' });
    for (const [k, v] of facts) t.append(el('tr', {}, el('th', { text: k }), el('td', { text: String(v) })));
    add(t);
    if (sc && classOrder.length) {
      const p = el('p', { class: 'note' });
      p.append('Class colours, the same in every chart: ');
      for (const c of classOrder) { p.append(swatch(c), c + '  '); }
      p.append(swatch('all'), 'all users (dashed)');
      add(p);
    }
  }
  function scenarioDetails() {
    const list = R.scenarios ? R.scenarios.map((s) => [s.name, s.scenario]) : R.variants ? R.variants.map((v) => [v.name, v.scenario]) : [[null, scenarioOf()]];
    for (const [name, sc] of list) {
      if (!sc) continue;
      const d = el('details', {}, el('summary', { text: 'Effective scenario' + (name ? ` (${name})` : '') + ': every default filled in, what was simulated' }), el('pre', { text: JSON.stringify(sc, null, 2) }));
      add(d);
    }
  }
  function slaTargets(sc) { return sc && sc.sla && Array.isArray(sc.sla.targets) ? sc.sla.targets : []; }
  const targetClass = (t) => t.class ?? 'all';
  function limitOf(t) { return t.max != null ? { v: t.max, op: '≤' } : t.min != null ? { v: t.min, op: '≥' } : null; }

  // ---- run ----
  function cdfOf(hist, unit) {
    const b = (hist && hist.buckets) || [];
    let n = 0;
    for (const x of b) n += x[2];
    const xs = [], ys = [];
    let acc = 0;
    if (n === 0) return { xs, ys, n };
    xs.push(b.length ? b[0][0] * 1e-9 / unit.div : 0); ys.push(0);
    for (const [, hi, c] of b) { acc += c; xs.push(hi * 1e-9 / unit.div); ys.push(acc / n); }
    return { xs, ys, n };
  }
  // Each class's waits as the share of its users in log-spaced bins (a log time axis).
  function logHistogram(classes, unit, key) {
    key = key || 'wait_histogram';
    let lo = Infinity, hi = 0;
    for (const c of classes) for (const [l, h, n] of c[key].buckets) if (n > 0 && l > 0) { lo = Math.min(lo, l); hi = Math.max(hi, h); }
    if (!(hi > lo)) return null;
    const bins = 60, llo = Math.log10(lo), lhi = Math.log10(hi), w = (lhi - llo) / bins;
    const xs = [];
    for (let i = 0; i < bins; i++) xs.push(Math.pow(10, llo + (i + 0.5) * w) * 1e-9 / unit.div);
    const ys = classes.map((c) => {
      const y = new Array(bins).fill(0);
      let n = 0, zero = 0;
      for (const [l, h, k] of c[key].buckets) {
        n += k;
        if (l <= 0) { zero += k; continue; }
        const mid = Math.sqrt(l * Math.max(h, l + 1));
        const i = Math.min(bins - 1, Math.max(0, Math.floor((Math.log10(mid) - llo) / w)));
        y[i] += k;
      }
      return { y: y.map((v) => (n ? (100 * v) / n : null)), zeroShare: n ? zero / n : 0 };
    });
    return { xs, ys };
  }
  // How long those who gave up had waited, per class (rows: objects with abandon_histogram).
  function abandonersChart(rows, what) {
    const gave = rows.filter((c) => c.abandon_histogram && c.abandon_histogram.buckets.length);
    if (!gave.length) return;
    let maxA = 0;
    for (const c of gave) for (const b of c.abandon_histogram.buckets) maxA = Math.max(maxA, b[1] * 1e-9);
    const au = timeUnit(maxA);
    const lh = logHistogram(gave, au, 'abandon_histogram');
    if (!lh) return;
    chart({
      title: `Waits of the users who gave up${what}, on a log time axis`, xLabel: `time waited before giving up (${au.name}, log scale)`, yLabel: 'share of the class\'s abandoners (%) per bin', xLog: true,
      note: `60 bins of equal width in log(wait), from the abandoners' wait histograms (${gave.map((c) => `${c.name} ${c.abandon_histogram.buckets.reduce((a, b) => a + b[2], 0)}`).join(', ')} users).`,
      x: lh.xs, series: gave.map((c, i) => ({ label: c.name, colour: colourOf(c.name), dash: dashOf(c.name), y: lh.ys[i].y })), yMin: 0,
    });
  }
  function renderRun() {
    const sc = R.scenario || {};
    const classes = R.classes || [];
    const all = Object.assign({ name: 'all' }, R.overall);
    const rows = classes.concat(classes.length > 1 ? [all] : []);
    h2('Waits per class');
    note(`Simulated ${sig(R.run.end_time_s, 5)} s (${R.run.stop_reason}), ${R.run.events} events, peak queue ${R.run.peak_queue_length}; throughput ${sig(R.throughput_per_s, 5)} users/s. Wait = time from joining the queue to release.`);
    const maxWait = Math.max(0, ...rows.map((c) => c.wait_s.max || 0));
    const tu = timeUnit(maxWait);
    const f = (x) => (num(x) ? sig(x / tu.div, 4) : '–');
    // Counts that are 0 for every class are said once instead of a column of zeros.
    const counts = [['gave up', 'abandoned'], ['refused', 'refused'], ['waiting at end', 'waiting_at_end']];
    const shown = counts.filter(([, k]) => rows.some((c) => c[k]));
    const zero = counts.filter(([, k]) => !rows.some((c) => c[k])).map(([h]) => h);
    table(['class', 'arrived', 'released', ...shown.map(([h]) => h), `mean (${tu.name})`, `p50 (${tu.name})`, `p90 (${tu.name})`, `p95 (${tu.name})`, `p99 (${tu.name})`, `max (${tu.name})`],
      rows.map((c) => [{ text: c.name, swatch: c.name }, c.arrived, c.released, ...shown.map(([, k]) => c[k]), f(c.wait_s.mean), f(c.wait_s.p50), f(c.wait_s.p90), f(c.wait_s.p95), f(c.wait_s.p99), f(c.wait_s.max)]));
    if (zero.length) note(`None ${zero.join(', none ')}.`);
    // Users still waiting at the end: the waits above leave them out (censored).
    const censored = rows.filter((c) => c.censored && c.censored.count > 0);
    if (censored.length) {
      missing(`Users were still waiting at the end: the waits above leave them out and are too low. Below, the waits counting them at their time so far (at least); "?" where they could still move the figure anywhere above (not decidable).`);
      const lb = (c, k) => { const b = c.wait_bounds_s; return num(b.lower[k]) ? f(b.lower[k]) + (b.upper[k] === null ? '?' : '') : '–'; };
      table(['class', 'still waiting', 'counted', `mean ≥ (${tu.name})`, `p50 ≥`, `p90 ≥`, `p95 ≥`, `p99 ≥`, `max ≥`],
        censored.map((c) => [{ text: c.name, swatch: c.name }, c.censored.count, c.wait_bounds_s.count, lb(c, 'mean'), lb(c, 'p50'), lb(c, 'p90'), lb(c, 'p95'), lb(c, 'p99'), lb(c, 'max')]));
    }

    // CDF with percentiles and SLA limits.
    const tables = [], ser = [], marks = [];
    for (const c of rows) {
      const cdf = cdfOf(c.wait_histogram, tu);
      if (!cdf.n) continue;
      tables.push([cdf.xs, cdf.ys.map((v) => 100 * v)]);
      ser.push({ label: c.name, colour: colourOf(c.name), dash: dashOf(c.name) });
      if (c.name !== 'all') for (const [k, p] of [['p50', 50], ['p95', 95], ['p99', 99]]) if (num(c.wait_s[k])) marks.push({ x: c.wait_s[k] / tu.div, y: p, label: k, colour: colourOf(c.name), left: k === 'p95', dy: k === 'p99' ? 8 : 0 });
    }
    const vlines = [];
    for (const t of slaTargets(sc)) {
      const l = limitOf(t);
      if (l && isWaitMetric(t.metric)) vlines.push({ x: l.v / tu.div, label: `SLA ${targetClass(t)} ${WAIT_METRICS[t.metric]} ${l.op} ${duration(l.v)}`, colour: t.class && t.class !== 'all' ? colourOf(t.class) : '#b3261e' });
    }
    if (!tables.length) missing('No user was released: there is no wait distribution to draw.');
    if (tables.length) {
      const joined = uPlot.join(tables);
      chart({
        title: 'Wait-time distribution (CDF) per class', xLabel: `wait (${tu.name})`, yLabel: 'users released within (%)',
        note: 'From the result\'s wait histograms (buckets at most 0.79% wide). Dots: each class\'s p50, p95 and p99; dashed vertical lines: the scenario\'s SLA limits on waits, when it has any.',
        x: joined[0], series: ser.map((s, i) => Object.assign(s, { y: joined[i + 1] })), marks, vlines, yRange: [0, 100],
      });
      const lh = logHistogram(rows.filter((c) => c.wait_histogram && c.wait_histogram.buckets.length), tu);
      if (lh) {
        const hs = rows.filter((c) => c.wait_histogram && c.wait_histogram.buckets.length);
        const zeros = hs.map((c, i) => (lh.ys[i].zeroShare > 0 ? `${c.name} ${pct(lh.ys[i].zeroShare)}` : null)).filter(Boolean);
        chart({
          title: 'Wait histogram on a log time axis', xLabel: `wait (${tu.name}, log scale)`, yLabel: 'share of the class (%) per bin', xLog: true,
          note: '60 bins of equal width in log(wait).' + (zeros.length ? ` Waits of exactly 0 are not on a log axis: ${zeros.join(', ')}.` : ''),
          x: lh.xs, series: hs.map((c, i) => ({ label: c.name, colour: colourOf(c.name), dash: dashOf(c.name), y: lh.ys[i].y })), yMin: 0,
        });
      }
    }

    abandonersChart(rows, '');

    // Queue length over time.
    const q = R.queue_length;
    if (q && q.t_s && q.t_s.length) {
      h2('The queue over time');
      const qs = Object.keys(q.by_class || {}).sort((a, b) => classOrder.indexOf(a) - classOrder.indexOf(b)).map((name) => ({ label: `${name} waiting`, colour: colourOf(name), y: q.by_class[name] }));
      if (qs.length > 1) qs.push({ label: 'all waiting', colour: ALL, dash: [6, 4], y: q.length });
      else if (!qs.length) qs.push({ label: 'waiting', colour: ALL, y: q.length });
      qs.push({ label: `released per ${q.interval_s} s (dotted, right axis)`, colour: '#777777', width: 1, scale: 'y2', y: q.released_since_previous, dash: [2, 3] });
      chart({ title: 'Queue length per class, and releases per interval', xLabel: 'time (s)', yLabel: 'users waiting', y2Label: `users released per ${q.interval_s} s`, x: q.t_s, series: qs, yMin: 0,
        note: `Sampled every ${q.interval_s} s of simulated time.` });
    }

    // Backend and controller.
    const b = R.backend;
    if (b) {
      h2('Backend and release controller');
      table(['completed', 'timeouts', 'error rate', 'RT mean (s)', 'RT p50 (s)', 'RT p95 (s)', 'RT p99 (s)', 'utilisation', 'no-shows', 'late', 'reclaimed'],
        [[b.completed, b.timeouts, pct(b.error_rate), sig(b.response_time_s.mean), sig(b.response_time_s.p50), sig(b.response_time_s.p95), sig(b.response_time_s.p99), pct(b.utilisation), b.no_shows, b.late, b.reclaimed]]);
      const c = b.controller;
      if (c && c.t_s && c.t_s.length) {
        chart({ title: 'Release controller: users released per tick, and the response time it saw', xLabel: 'time (s)', yLabel: 'users per tick', y2Label: 'response time seen (ms)', x: c.t_s,
          series: [{ label: 'users per tick', colour: OTHER[0], y: c.rate_per_tick }, { label: 'RT seen (ms, right axis)', colour: OTHER[1], scale: 'y2', y: c.rt_ms }], yMin: 0 });
      } else missing('The controller recorded no samples (a fixed release has none).');
      const w = b.windows;
      if (w && w.t_s && w.t_s.length) {
        chart({ title: `Backend response time per ${w.window_s} s window, and utilisation`, xLabel: 'time (s)', yLabel: 'response time (ms)', y2Label: 'utilisation (%)', y2Range: [0, 105], x: w.t_s,
          series: [{ label: 'p50 RT (ms), dotted', colour: OTHER[0], dash: [3, 2], y: w.p50_ms }, { label: 'p95 RT (ms)', colour: OTHER[0], y: w.p95_ms }, { label: 'utilisation (%), dashed', colour: OTHER[1], dash: [6, 3], scale: 'y2', y: w.utilisation.map((v) => (num(v) ? 100 * v : null)) }], yMin: 0 });
      }
    }

    // Stock-capped sale.
    if (R.admission) {
      h2('Stock');
      const a = R.admission;
      table(['stock', 'refused', 'orders', 'order failures', 'cancellations', 'reopenings', 'max outstanding orders', 'available at end', 'sold out at (s)'],
        [[a.stock, a.refused, a.orders, a.order_failures, a.cancellations, a.reopenings, a.max_outstanding_orders, a.available_at_end, a.sold_out_at_s == null ? 'never' : sig(a.sold_out_at_s, 5)]]);
      const o = a.over_time;
      if (o && o.t_s && o.t_s.length) {
        chart({ title: 'Stock over time: slots available, orders placed, users refused', xLabel: 'time (s)', yLabel: `slots or orders (stock ${a.stock})`, y2Label: 'users refused (so far)', x: o.t_s, yMin: 0,
          note: `At every queue sample (${R.queue_length ? R.queue_length.interval_s : '?'} s). Available: slots a new user can still take (a failed or cancelled order gives one back, and the queue reopens); refused: users turned away as sold out, on the right axis.`,
          vlines: a.sold_out_at_s != null ? [{ x: a.sold_out_at_s, label: `sold out at ${sig(a.sold_out_at_s, 4)} s`, colour: '#b3261e' }] : [],
          series: [{ label: 'slots available', colour: OTHER[0], y: o.available }, { label: 'orders placed', colour: OTHER[1], y: o.orders }, { label: 'refused (dashed, right axis)', colour: OTHER[2], dash: [6, 3], scale: 'y2', y: o.refused }] });
      } else missing('Stock over time is not drawn: this result has no stock samples (written by an older version).');
    }

    // Polling.
    const p = R.polling;
    if (p) {
      h2('The waiting page: polling and Redis load');
      note(`Redis commands in all: ${p.commands.total} with the status cache, ${p.commands_without_cache.total} without (${pct(p.cache_reduction)} fewer). Peak ${p.peak_per_second.total}/s with the cache, ${p.peak_per_second.total_without_cache}/s without.`);
      const s = p.per_second;
      if (s && s.t_s && s.t_s.length) {
        chart({ title: 'Redis commands per second, with and without the status cache', xLabel: 'time (s)', yLabel: 'Redis commands per second', x: s.t_s,
          series: [{ label: 'without cache', colour: OTHER[1], y: s.total_without_cache }, { label: 'with cache', colour: OTHER[0], y: s.total }, { label: 'polls (dotted)', colour: OTHER[2], dash: [2, 3], width: 1, y: s.polls }], yMin: 0 });
      }
      const fo = p.followed;
      if (fo && fo.by_class && fo.by_class.length) {
        const est = Object.keys(fo.by_class[0].eta || {});
        if (est.length) {
          chart({ title: 'ETA estimators: mean absolute error of the shown ETA, per class', xLabel: 'estimator', yLabel: 'mean absolute error (s)', x: est.map((_, i) => i), xValues: est,
            note: `Scored against the realised waits of the followed users (${pct(fo.share)} of users, ${fo.users} in all). Dot: the mean over users of each user's mean absolute ETA error; whiskers: its 95% interval. Each estimator's MAE, p90 absolute error and bias are in the table below, its error distribution in the charts after it.`,
            series: fo.by_class.map((c, k) => ({ label: c.class, colour: colourOf(c.class), whiskersOnly: true, y: est.map((e) => (c.eta[e].user_mae_s ? c.eta[e].user_mae_s.mean : null)) })),
            whiskers: fo.by_class.flatMap((c, k) => est.map((e, i) => { const m = c.eta[e].user_mae_s; return m && m.ci95 ? { x: i + (k - (fo.by_class.length - 1) / 2) * 0.15, lo: m.ci95[0], hi: m.ci95[1], mid: m.mean, colour: colourOf(c.class) } : null; }).filter(Boolean)), yMin: 0 });
          table(['class', 'estimator', 'predictions', 'unavailable', 'MAE (s)', 'p90 |error| (s)', 'bias (s)'],
            fo.by_class.flatMap((c) => est.map((e) => [{ text: c.class, swatch: c.class }, e, c.eta[e].predictions, c.eta[e].unavailable, sig(c.eta[e].mae_s), sig(c.eta[e].p90_abs_error_s), sig(c.eta[e].bias_s)])));
          // The error distributions: each estimator's |error| quantiles, one chart per class.
          for (const c of fo.by_class) {
            const qs = est.map((e) => c.eta[e].abs_error_quantiles_s).filter(Boolean);
            if (!qs.length || qs.length !== est.length) continue;
            const joined = uPlot.join(qs.map((d) => [d.value, d.q.map((v) => 100 * v)]));
            chart({ title: `ETA estimators: distribution of the absolute error, ${c.class}`, xLabel: 'absolute ETA error (s)', yLabel: 'predictions within (%)', yRange: [0, 100],
              note: `Each estimator's |shown ETA − realised remaining wait| over ${c.eta[est[0]].predictions} predictions to released ${c.class} users, by quantiles 1%, 5%, 10%, … 95%, 99%. Further left is better.`,
              x: joined[0], series: est.map((e, i) => ({ label: e, colour: SEQUENTIAL[(2 * i + 1) % SEQUENTIAL.length], points: true, y: joined[i + 1] })) });
          }
        }
        h3('Shown rank');
        table(['class', 'followed users', 'rank moved back (raw): share of users', 'per user', 'rank moved back (smoothed): share of users', 'per user'],
          fo.by_class.map((c) => [{ text: c.class, swatch: c.class }, c.users, pct(c.moved_backwards.raw.share_of_users), sig(c.moved_backwards.raw.per_user.mean), pct(c.moved_backwards.smoothed.share_of_users), sig(c.moved_backwards.smoothed.per_user.mean)]));
        const trails = fo.by_class.flatMap((c) => (c.shown_rank_trails || []).map((t) => Object.assign({ cls: c.class }, t)));
        if (trails.length) {
          const joined = uPlot.join(trails.flatMap((t) => [[t.t_s, t.raw], [t.t_s, t.smoothed]]));
          chart({ title: 'Shown rank of a few followed users: raw and smoothed', xLabel: 'time (s)', yLabel: 'rank shown (people ahead)', yMin: 0,
            note: `Each class's first followed users with at least 10 polls (up to 3 per class), at every poll: the raw rank (dotted) and the rank shown after smoothing (the minimum over ${sc.polling && sc.polling.smooth_rank_s != null ? sc.polling.smooth_rank_s : 10} s, solid). A raw line rising is a user pushed back (by a VIP, a late score); the smoothed one should not rise.`,
            x: joined[0], series: trails.flatMap((t, i) => [
              { label: `${t.cls} user ${t.user} raw`, colour: colourOf(t.cls), dash: [2, 3], width: 1, y: joined[2 * i + 1] },
              { label: `${t.cls} user ${t.user} smoothed`, colour: colourOf(t.cls), width: 2, y: joined[2 * i + 2] }]) });
        } else missing('No followed user polled 10 times or more: there is no rank trajectory to draw.');
      }
    }
  }
  function h3(t) { add(el('h3', { text: t })); }

  // ---- replications ----
  const PCTS = [['p50_wait_s', 50], ['p90_wait_s', 90], ['p95_wait_s', 95], ['p99_wait_s', 99]];
  function renderReplications() {
    const sc = R.scenario || {};
    const classes = (R.classes || []).map((c) => Object.assign({}, c));
    const rows = classes.concat([Object.assign({ name: 'all' }, R.overall)]);
    h2('Waits per class, 95% intervals across replications');
    note(R.method || '');
    let maxW = 0;
    for (const c of rows) for (const [m] of PCTS.concat([['max_wait_s']])) if (c[m] && c[m].ci) maxW = Math.max(maxW, c[m].ci[1]);
    const tu = timeUnit(maxW);
    const f = (x) => sig(x / tu.div, 4);
    table(['class', `mean (${tu.name})`, `p50 (${tu.name})`, `p90 (${tu.name})`, `p95 (${tu.name})`, `p99 (${tu.name})`, `max (${tu.name})`, 'refused', 'abandoned', 'waiting at end'],
      rows.map((c) => [{ text: c.name, swatch: c.name }, ciCell(c.mean_wait_s, f), ciCell(c.p50_wait_s, f), ciCell(c.p90_wait_s, f), ciCell(c.p95_wait_s, f), ciCell(c.p99_wait_s, f), ciCell(c.max_wait_s, f), ciCell(c.refused_share, pct), ciCell(c.abandoned_share, pct), ciCell(c.waiting_at_end_share, pct)]));
    // Percentile curves with bands: waits on x, the percentile on y, as a CDF read at p50..p99.
    const xs = PCTS.map((_, i) => i);
    chart({
      title: 'Wait percentiles per class with 95% confidence bands', xLabel: 'percentile of the class\'s waits', yLabel: `wait (${tu.name})`, x: xs, xValues: PCTS.map(([m]) => WAIT_METRICS[m]),
      note: 'Each replication\'s percentile, then a t interval across replications (the band). Read the curve as the inverse CDF at p50, p90, p95 and p99. Horizontal lines: SLA limits on these percentiles.',
      series: rows.filter((c) => c.p50_wait_s).map((c) => ({ label: c.name, colour: colourOf(c.name), dash: dashOf(c.name), points: true,
        y: PCTS.map(([m]) => (c[m] ? c[m].estimate / tu.div : null)), band: [PCTS.map(([m]) => (c[m] ? c[m].ci[0] / tu.div : null)), PCTS.map(([m]) => (c[m] ? c[m].ci[1] / tu.div : null))] })),
      hlines: slaTargets(sc).filter((t) => limitOf(t) && PCTS.some(([m]) => m === t.metric)).map((t) => ({ y: limitOf(t).v / tu.div, label: `SLA ${targetClass(t)} ${WAIT_METRICS[t.metric]} ${limitOf(t).op} ${duration(limitOf(t).v)}`, colour: t.class && t.class !== 'all' ? colourOf(t.class) : '#b3261e' })),
      yMin: 0,
    });
    // Mean wait per class with its interval.
    const cls = rows.filter((c) => c.mean_wait_s);
    chart({
      title: 'Mean wait per class with 95% intervals', xLabel: 'class', yLabel: `mean wait (${tu.name})`, x: cls.map((_, i) => i), xValues: cls.map((c) => c.name),
      series: [{ label: 'mean wait', colour: ALL, whiskersOnly: true, y: cls.map((c) => c.mean_wait_s.estimate / tu.div) }],
      whiskers: cls.map((c, i) => ({ x: i, lo: c.mean_wait_s.ci[0] / tu.div, hi: c.mean_wait_s.ci[1] / tu.div, mid: c.mean_wait_s.estimate / tu.div, colour: colourOf(c.name) })),
      hlines: slaTargets(sc).filter((t) => t.metric === 'mean_wait_s' && limitOf(t)).map((t) => ({ y: limitOf(t).v / tu.div, label: `SLA ${targetClass(t)} mean ${limitOf(t).op} ${duration(limitOf(t).v)}`, colour: t.class && t.class !== 'all' ? colourOf(t.class) : '#b3261e' })),
      yMin: 0,
    });
    const per = R.per_replication || [];
    if (per.length) {
      chart({ title: 'Mean wait of everyone, per replication', xLabel: 'replication', yLabel: `mean wait (${tu.name})`, x: per.map((r) => r.replication), xInteger: true,
        xRange: [per[0].replication - 0.5, per[per.length - 1].replication + 0.5],
        note: 'Each dot one independent replication; dotted lines: the 95% interval of their mean.',
        series: [{ label: 'replication mean', colour: ALL, noLine: true, y: per.map((r) => r.mean_wait_s / tu.div) }],
        hlines: R.overall && R.overall.mean_wait_s ? [{ y: R.overall.mean_wait_s.ci[0] / tu.div, label: 'mean: 95% low', colour: '#777', dash: [3, 3] }, { y: R.overall.mean_wait_s.ci[1] / tu.div, label: 'mean: 95% high', colour: '#777', dash: [3, 3] }] : [] });
    }
    // Every replication's waits merged, per class: the CDF a single long run would show, with
    // each percentile's interval across replications drawn as a horizontal whisker.
    const tables = [], ser = [], marks = [];
    for (const c of rows) {
      const cdf = c.pooled && c.pooled.wait_histogram ? cdfOf(c.pooled.wait_histogram, tu) : { n: 0 };
      if (!cdf.n) continue;
      tables.push([cdf.xs, cdf.ys.map((v) => 100 * v)]);
      ser.push({ label: c.name, colour: colourOf(c.name), dash: dashOf(c.name) });
      if (c.name !== 'all') for (const [m, p] of [['p50_wait_s', 50], ['p95_wait_s', 95], ['p99_wait_s', 99]]) if (c[m] && c[m].ci) marks.push({ lo: c[m].ci[0] / tu.div, hi: c[m].ci[1] / tu.div, y: p, colour: colourOf(c.name) });
    }
    if (tables.length) {
      const joined = uPlot.join(tables);
      chart({ title: 'Wait-time distribution (CDF) per class, all replications pooled', xLabel: `wait (${tu.name})`, yLabel: 'users released within (%)', yRange: [0, 100],
        note: 'Bars at 50%, 95% and 99%: the 95% interval of that percentile across replications. Dashed vertical lines: SLA limits on waits.',
        x: joined[0], series: ser.map((s2, i) => Object.assign(s2, { y: joined[i + 1] })), hbars: marks,
        vlines: slaTargets(sc).filter((t) => limitOf(t) && isWaitMetric(t.metric)).map((t) => ({ x: limitOf(t).v / tu.div, label: `SLA ${targetClass(t)} ${WAIT_METRICS[t.metric]} ${limitOf(t).op} ${duration(limitOf(t).v)}`, colour: t.class && t.class !== 'all' ? colourOf(t.class) : '#b3261e' })) });
    }
    // The queue over time: mean over replications per sample time, with pointwise 95% bands.
    const qb = R.queue_length_bands;
    if (qb && qb.t_s && qb.t_s.length) {
      h2('The queue over time, 95% bands across replications');
      const band = (b) => [b.ci_low.map((v) => Math.max(0, v)), b.ci_high];
      const names = Object.keys(qb.waiting_by_class || {}).sort((a, b) => classOrder.indexOf(a) - classOrder.indexOf(b));
      const qs = names.map((name) => ({ label: `${name} waiting`, colour: colourOf(name), y: qb.waiting_by_class[name].mean, band: band(qb.waiting_by_class[name]) }));
      if (qs.length > 1) qs.push({ label: 'all waiting', colour: ALL, dash: [6, 4], y: qb.waiting.mean, band: band(qb.waiting) });
      else if (!qs.length) qs.push({ label: 'waiting', colour: ALL, y: qb.waiting.mean, band: band(qb.waiting) });
      chart({ title: 'Queue length per class over time, mean of replications with 95% bands', xLabel: 'time (s)', yLabel: 'users waiting', x: qb.t_s, series: qs, yMin: 0,
        note: `Sampled every ${qb.interval_s} s of simulated time in each of ${qb.replications} replications. ${qb.method}` });
      chart({ title: `Users released per ${qb.interval_s} s, mean of replications with 95% band`, xLabel: 'time (s)', yLabel: `users released per ${qb.interval_s} s`, x: qb.t_s, yMin: 0,
        series: [{ label: 'released', colour: OTHER[0], y: qb.released_since_previous.mean, band: band(qb.released_since_previous) }] });
    }
    const tails = rows.filter((c) => c.p_waited);
    if (tails.length) {
      h2('Probability of waiting, 95% intervals across replications');
      note('Each replication\'s share of its released users who waited at all (t = 0) or longer than t, then a Student-t interval across replications. t: the scenario\'s SLA limits on waits, or fixed points without any.');
      table(['class', 't', 'P(wait > t)', 'from'], tails.flatMap((c) => [[{ text: c.name, swatch: c.name }, '0', ciCell(c.p_waited, pct), 'waited at all']].concat(
        (c.p_wait_above || []).map((t) => [{ text: c.name, swatch: c.name }, duration(t.t_s), ciCell(t, pct), t.from === 'sla' ? 'SLA limit' : 'fixed point']))));
    }
    abandonersChart(rows.map((c) => Object.assign({ name: c.name }, c.pooled || {})), ', all replications pooled');
    missing('Controller, backend and polling series over time are not drawn for replications: render a single run (waitroom run --html) for those.');
  }

  // ---- compare: forest plots ----
  function renderCompare() {
    const base = R.variants[0];
    const others = R.variants.slice(1);
    h2('Paired differences against ' + base.name);
    note((R.method || '') + ' Each whisker is a 95% interval of the paired difference (variant − base) over replications on common random numbers; an interval that does not cross 0 is a real difference.');
    const metrics = [];
    for (const c of base.classes) for (const k of Object.keys(c)) if (k !== 'class' && c[k] && typeof c[k] === 'object' && 'estimate' in c[k] && !metrics.includes(k)) metrics.push(k);
    // Waits first, in percentile order, then shares and whole-room figures.
    const rank = (m) => { const w = Object.keys(WAIT_METRICS).indexOf(m); return w >= 0 ? w : 100 + metrics.indexOf(m); };
    metrics.sort((a, b) => rank(a) - rank(b));
    const same = [];
    for (const m of metrics) {
      // A metric no variant moved in any replication (often a share that is 0 throughout).
      if (others.every((v) => v.classes.every((c) => !c[m] || !c[m].difference || (Math.abs(c[m].difference.ci[0]) < 1e-12 && Math.abs(c[m].difference.ci[1]) < 1e-12)))) { same.push(m); continue; }
      const labels = [], whiskers = [], ys = [], rowsT = [];
      const share = isShare(m);
      let maxAbs = 0;
      for (const v of R.variants) for (const c of v.classes) if (c[m]) maxAbs = Math.max(maxAbs, Math.abs(c[m].estimate));
      const tu = share ? { name: '%', div: 0.01 } : /_s$/.test(m) ? timeUnit(maxAbs) : { name: '', div: 1 };
      for (const v of others) for (const c of v.classes) {
        const d = c[m] && c[m].difference;
        if (!d) continue;
        labels.push(`${v.name}: ${c.class}`);
        ys.push(d.estimate / tu.div);
        whiskers.push({ x: labels.length - 1, lo: d.ci[0] / tu.div, hi: d.ci[1] / tu.div, mid: d.estimate / tu.div, colour: colourOf(c.class) });
        const bc = base.classes.find((b) => b.class === c.class);
        rowsT.push([v.name, { text: c.class, swatch: c.class }, bc && bc[m] ? sig(bc[m].estimate / tu.div) : '–', sig(c[m].estimate / tu.div), `${sig(d.estimate / tu.div)} [${sig(d.ci[0] / tu.div)}, ${sig(d.ci[1] / tu.div)}]`, d.ci[0] > 0 || d.ci[1] < 0 ? { text: 'differs', cls: 'fail' } : { text: 'no difference shown', cls: 'na' }]);
      }
      if (!labels.length) continue;
      const unit = tu.name ? ` (${tu.name})` : '';
      chart({ title: `${m}: variant − ${base.name}`, xLabel: 'variant: class', yLabel: `difference${unit}`, x: labels.map((_, i) => i), xValues: labels, height: 280,
        series: [{ label: 'paired difference', colour: ALL, whiskersOnly: true, y: ys }], whiskers, hlines: [{ y: 0, label: 'no difference', colour: '#777', dash: [2, 2] }] });
      table(['variant', 'class', `${base.name}${unit}`, `variant${unit}`, `difference${unit} [95%]`, ''], rowsT);
    }
    if (same.length) note(`Identical in every replication for every variant and class (not drawn): ${same.join(', ')}.`);
  }

  // ---- sweep and plan ----
  // A heat map drawn on a canvas: xs along the bottom, ys down the left, one cell per pair,
  // coloured by the worst observed/limit ratio (log scale, green below 1, red above), with a
  // colour legend, a ✓/✗ per cell (readable in grey print) and a hover read-out. It answers
  // the browser test as a uPlot chart does (ctx, bbox, setSize).
  function heatMap(spec) {
    const box = el('div', { class: 'chart heatmap' });
    add(box);
    box.append(el('div', { class: 'u-title', text: spec.title }));
    const canvas = el('canvas');
    box.append(canvas);
    const readout = el('p', { class: 'note readout', text: 'Hover a cell for its targets.' });
    box.append(readout);
    const ctx = canvas.getContext('2d');
    const ratioColour = (r, verdict) => {
      if (verdict === 'undecided') return '#9e9e9e';
      if (verdict === 'na' || !num(r)) return verdict === 'pass' ? '#1a9850' : verdict === 'fail' ? '#d73027' : '#9e9e9e';
      // log2(ratio) in [-2, 1]: deep green at a quarter of the limit, yellow-green near it, red past it.
      const x = Math.max(-2, Math.min(1, Math.log2(Math.max(r, 1e-9))));
      if (verdict === 'fail' || r > 1) return x > 0.5 ? '#a50026' : '#d73027';
      return x < -1.5 ? '#006837' : x < -1 ? '#1a9850' : x < -0.5 ? '#66bd63' : '#91cf60';
    };
    const obj = { ctx, bbox: { left: 0, top: 0, width: 1, height: 1 }, height: 0, layout: null };
    const cellsDrawn = spec.cells.filter((c) => c.p).length;
    function draw(cssWidth) {
      const dpr = devicePixelRatio || 1;
      const left = 90, right = 150, top = 12, bottom = 58;
      const cw = Math.max(24, Math.floor((cssWidth - left - right) / spec.xs.length));
      const ch = Math.max(22, Math.min(48, cw));
      const w = left + cw * spec.xs.length + right, h = top + ch * spec.ys.length + bottom;
      canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
      canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
      obj.height = h;
      obj.bbox = { left: left * dpr, top: top * dpr, width: cw * spec.xs.length * dpr, height: ch * spec.ys.length * dpr };
      obj.layout = { left, top, cw, ch };
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, w, h);
      ctx.font = '12px system-ui, sans-serif';
      ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
      spec.ys.forEach((a, yi) => spec.xs.forEach((b, xi) => {
        const c = spec.cells.find((q) => q.a === a && q.b === b);
        const x = left + xi * cw, y = top + yi * ch;
        ctx.fillStyle = c && c.p ? ratioColour(c.worst, c.verdict) : '#ffffff';
        ctx.fillRect(x, y, cw, ch);
        ctx.strokeStyle = '#ffffff'; ctx.lineWidth = 1.5; ctx.strokeRect(x, y, cw, ch);
        if (c && c.p) {
          ctx.fillStyle = '#ffffff';
          const mark = c.verdict === 'pass' ? '✓' : c.verdict === 'fail' ? '✗' : '?';
          ctx.fillText(cw >= 56 && num(c.worst) ? `${mark} ${sig(c.worst, 3)}` : mark, x + cw / 2, y + ch / 2);
        }
      }));
      // Axes: tick labels at each cell, the knobs' names.
      ctx.fillStyle = '#222';
      const every = Math.max(1, Math.ceil(spec.xs.length / Math.max(1, Math.floor((cw * spec.xs.length) / 40))));
      spec.xs.forEach((b, xi) => { if (xi % every === 0) ctx.fillText(String(b), left + xi * cw + cw / 2, top + ch * spec.ys.length + 12); });
      ctx.textAlign = 'right';
      spec.ys.forEach((a, yi) => ctx.fillText(String(a), left - 6, top + yi * ch + ch / 2));
      ctx.textAlign = 'center'; ctx.font = '600 13px system-ui, sans-serif';
      ctx.fillText(spec.xLabel, left + (cw * spec.xs.length) / 2, top + ch * spec.ys.length + 36);
      ctx.save(); ctx.translate(16, top + (ch * spec.ys.length) / 2); ctx.rotate(-Math.PI / 2); ctx.fillText(spec.yLabel, 0, 0); ctx.restore();
      // Legend: the colour steps with their ratio ranges.
      const lx = left + cw * spec.xs.length + 16;
      const steps = [['#006837', '< 0.35 (✓)'], ['#1a9850', '0.35–0.5 (✓)'], ['#66bd63', '0.5–0.71 (✓)'], ['#91cf60', '0.71–1 (✓)'], ['#d73027', '1–1.41 (✗)'], ['#a50026', '> 1.41 (✗)'], ['#9e9e9e', 'no verdict (?)']];
      ctx.font = '600 12px system-ui, sans-serif'; ctx.textAlign = 'left';
      ctx.fillText('worst ratio', lx, top + 6);
      ctx.font = '12px system-ui, sans-serif';
      steps.forEach(([col, label], i) => { ctx.fillStyle = col; ctx.fillRect(lx, top + 18 + i * 18, 14, 14); ctx.fillStyle = '#222'; ctx.fillText(label, lx + 20, top + 25 + i * 18); });
    }
    obj.setSize = ({ width }) => draw(width);
    draw(WIDTH);
    canvas.addEventListener('mousemove', (ev) => {
      const L = obj.layout, r = canvas.getBoundingClientRect();
      const scale = r.width / (canvas.width / (devicePixelRatio || 1));
      const xi = Math.floor(((ev.clientX - r.left) / scale - L.left) / L.cw), yi = Math.floor(((ev.clientY - r.top) / scale - L.top) / L.ch);
      const c = xi >= 0 && yi >= 0 && xi < spec.xs.length && yi < spec.ys.length ? spec.cells.find((q) => q.a === spec.ys[yi] && q.b === spec.xs[xi]) : null;
      readout.textContent = c && c.p ? `${spec.yLabel} = ${c.a}, ${spec.xLabel} = ${c.b}: ${c.verdict === 'pass' ? 'every SLA holds' : c.verdict === 'fail' ? 'a target fails' : c.verdict === 'undecided' ? 'undecided (no data, or users still waiting could change it)' : 'no verdict'}${num(c.worst) ? `, worst ratio ${sig(c.worst, 3)}` : ''}. ${c.detail.join('; ')}` : 'Hover a cell for its targets.';
    });
    charts.push({ title: spec.title, points: cellsDrawn, u: obj });
    box.setAttribute('data-points', String(cellsDrawn));
    return obj;
  }
  function renderGrid() {
    const pts = R.points || [];
    const axes = R.axes || (pts[0] ? Object.keys(pts[0].values) : []);
    if (!pts.length) { missing('The result has no points.'); return; }
    const sc = R.scenario;
    const classNames = pts[0].classes.map((c) => c.class).filter((n) => n !== 'all');
    for (const n of classNames) colourOf(n);
    if (pts[0].classes.some((c) => c.class === 'all')) classNames.push('all');
    const withSla = pts.some((p) => 'sla_holds' in p);
    // Three verdicts: a target not decided (no data, or users still waiting could change it)
    // is neither a pass nor a failure; a point fails only when one of its targets fails.
    const targetVerdict = (t) => (t.pass ? 'pass' : t.verdict === 'undecided' ? 'undecided' : 'fail');
    const pointVerdict = (p) => (!('sla_holds' in p) ? 'na' : p.sla_holds ? 'pass' : (p.targets || []).some((t) => targetVerdict(t) === 'fail') ? 'fail' : 'undecided');
    const verdictWord = { pass: 'holds', fail: 'fails', undecided: 'undecided', na: '–' };
    if (axes.length === 1) {
      const ax = axes[0];
      const xs = pts.map((p) => p.values[ax]);
      h2(`Against ${ax}`);
      let maxW = 0;
      for (const p of pts) for (const c of p.classes) for (const m of ['mean_wait_s', 'p95_wait_s']) if (c[m]) maxW = Math.max(maxW, c[m].ci[1]);
      const tu = timeUnit(maxW);
      const shade = [];
      if (withSla) {
        const step = xs.length > 1 ? Math.min(...xs.slice(1).map((x, i) => x - xs[i])) : 1;
        for (let i = 0; i < pts.length; i++) if (pts[i].sla_holds) shade.push({ from: xs[i] - step / 2, to: xs[i] + step / 2 });
        const ok = pts.filter((p) => p.sla_holds).map((p) => p.values[ax]);
        note(ok.length ? `Every SLA holds (on confidence bounds) at ${ax} = ${ok.join(', ')}: the shaded range.` : `No value of ${ax} tried meets every SLA.`);
      }
      const limits = (metric) => {
        const seen = new Map();
        for (const t of pts[0].targets || []) if (t.metric === metric) { const l = limitOf(t); if (l) seen.set(t.class + metric, { y: l.v / tu.div, label: `SLA ${t.class} ${WAIT_METRICS[metric]} ${l.op} ${duration(l.v)}`, colour: t.class !== 'all' ? colourOf(t.class) : '#b3261e' }); }
        return [...seen.values()];
      };
      for (const [m, what] of [['mean_wait_s', 'Mean wait'], ['p95_wait_s', 'p95 wait']]) {
        // Waits across a knob often span decades: a log axis then keeps the SLA limits readable.
        let lo = Infinity, hi = 0;
        for (const p of pts) for (const c of p.classes) if (c[m] && c[m].estimate > 0) { lo = Math.min(lo, c[m].estimate); hi = Math.max(hi, c[m].estimate); }
        const log = hi / lo > 50;
        chart({ title: `${what} per class against ${ax}, with 95% bands`, xLabel: ax, yLabel: `${what.toLowerCase()} (${tu.name}${log ? ', log scale' : ''})`, x: xs, shade, hlines: limits(m), yMin: log ? undefined : 0, yLog: log,
          note: log ? 'Log scale: the waits span more than a factor of 50 across the range.' : undefined,
          series: classNames.map((n) => ({ label: n, colour: colourOf(n), dash: dashOf(n), points: true,
            y: pts.map((p) => { const c = p.classes.find((q) => q.class === n); return c && c[m] ? c[m].estimate / tu.div : null; }),
            band: [pts.map((p) => { const c = p.classes.find((q) => q.class === n); return c && c[m] ? c[m].ci[0] / tu.div : null; }), pts.map((p) => { const c = p.classes.find((q) => q.class === n); return c && c[m] ? c[m].ci[1] / tu.div : null; })] })) });
      }
      // Pareto front of the first two classes' mean waits.
      const named = classNames.filter((n) => n !== 'all');
      if (named.length >= 2) {
        const [a, b] = named;
        const get = (p, n) => { const c = p.classes.find((q) => q.class === n); return c && c.mean_wait_s ? c.mean_wait_s.estimate / tu.div : null; };
        const P = pts.map((p) => ({ x: get(p, a), y: get(p, b), v: p.values[ax], holds: p.sla_holds, pareto: p.pareto }));
        for (const p of P) if (p.pareto == null) p.pareto = !P.some((q) => q !== p && q.x <= p.x && q.y <= p.y && (q.x < p.x || q.y < p.y));
        const order = P.map((p, i) => i).sort((i, j) => P[i].x - P[j].x);
        const front = order.filter((i) => P[i].pareto);
        const xsP = order.map((i) => P[i].x);
        const pos = P.filter((p) => p.x > 0 && p.y > 0);
        const spread = pos.length ? Math.max(Math.max(...pos.map((p) => p.x)) / Math.min(...pos.map((p) => p.x)), Math.max(...pos.map((p) => p.y)) / Math.min(...pos.map((p) => p.y))) : 1;
        const logP = spread > 50 && pos.length === P.length;
        chart({ title: `Pareto front: ${a} against ${b} mean wait, each point one value of ${ax}`, xLabel: `${a} mean wait (${tu.name}${logP ? ', log scale' : ''})`, yLabel: `${b} mean wait (${tu.name}${logP ? ', log' : ''})`, x: xsP, xLog: logP, yLog: logP,
          note: 'Blue: Pareto-optimal (no other value gives both classes a shorter mean wait), joined by the line; grey: dominated. Labels: the knob\'s value; a ✓ where every SLA holds.',
          series: [{ label: 'Pareto-optimal', colour: '#0072B2', points: true, y: order.map((i) => (P[i].pareto ? P[i].y : null)) }, { label: 'dominated', colour: '#999999', noLine: true, y: order.map((i) => (P[i].pareto ? null : P[i].y)) }],
          marks: order.filter((i, k) => k % Math.max(1, Math.ceil(order.length / 12)) === 0 || (P[i].holds && order.length <= 40)).map((i) => ({ x: P[i].x, y: P[i].y, label: `${P[i].v}${P[i].holds ? ' ✓' : ''}`, colour: P[i].pareto ? '#0072B2' : '#999999' })) });
        void front;
      }
    } else {
      const [ax0, ax1] = axes;
      const v0 = [...new Set(pts.map((p) => p.values[ax0]))], v1 = [...new Set(pts.map((p) => p.values[ax1]))];
      h2(`Feasible region over ${ax0} and ${ax1}`);
      note('Each cell is one point of the grid: its colour the largest observed/limit ratio among the SLA targets (the interval\'s upper bound over a "max" limit, or a "min" limit over the lower bound: above 1 fails), green where every SLA holds on its confidence bound, red where a target fails, grey "?" where it is undecided (no data, or users still waiting at the end could change it) or has no SLA. Hover a cell for its targets; the same figures are in the table after the map.');
      const cellsOf = [];
      for (const a of v0) for (const b of v1) {
        const p = pts.find((q) => q.values[ax0] === a && q.values[ax1] === b);
        let worst = null;
        if (p) for (const tg of p.targets || []) { const r = tg.max != null ? tg.ci[1] / tg.max : tg.min != null && tg.ci[0] ? tg.min / tg.ci[0] : null; if (num(r)) worst = worst == null ? r : Math.max(worst, r); }
        const verdict = !p ? 'na' : pointVerdict(p);
        cellsOf.push({ a, b, p, worst, verdict, detail: p ? (p.targets || []).map((tg) => `${tg.class} ${tg.metric} ${sig(tg.estimate)} [${sig(tg.ci[0])}, ${sig(tg.ci[1])}] ${verdictWord[targetVerdict(tg)]}`) : [] });
      }
      heatMap({ title: `Feasible map over ${ax0} and ${ax1}`, xLabel: ax1, yLabel: ax0, xs: v1, ys: v0, cells: cellsOf });
      const t = el('table', { class: 'heat' });
      t.append(el('caption', { text: `The feasible map as a table (cell: the largest observed/limit ratio; hover for the targets)` }));
      const hr = el('tr', {}, el('th', { text: `${ax0} ↓  ${ax1} →` }));
      for (const b of v1) hr.append(el('th', { text: String(b) }));
      t.append(hr);
      for (const a of v0) {
        const tr = el('tr', {}, el('th', { text: String(a) }));
        for (const b of v1) {
          const c = cellsOf.find((q) => q.a === a && q.b === b);
          if (!c.p) { tr.append(el('td', { class: 'na', text: '–' })); continue; }
          tr.append(el('td', { class: c.verdict, text: c.verdict === 'undecided' ? '?' : c.worst == null ? (c.p.sla_holds ? '✓' : '✗') : sig(c.worst, 3), title: c.detail.join('\n') }));
        }
        t.append(tr);
      }
      add(t);
      // Also each class's p95 along the second knob, one curve per value of the first.
      let maxW = 0;
      for (const p of pts) for (const c of p.classes) if (c.p95_wait_s) maxW = Math.max(maxW, c.p95_wait_s.ci[1]);
      const tu = timeUnit(maxW);
      const allName = pts[0].classes.some((c) => c.class === 'all') ? 'all' : pts[0].classes[0].class;
      chart({ title: `p95 wait of ${allName} users against ${ax1}, one curve per ${ax0}`, xLabel: ax1, yLabel: `p95 wait (${tu.name})`, x: v1, yMin: 0,
        series: v0.map((a, i) => ({ label: `${ax0} = ${a}`, colour: SEQUENTIAL[Math.round((i * (SEQUENTIAL.length - 1)) / Math.max(1, v0.length - 1))], points: true, y: v1.map((b) => { const p = pts.find((q) => q.values[ax0] === a && q.values[ax1] === b); const c = p && p.classes.find((q) => q.class === allName); return c && c.p95_wait_s ? c.p95_wait_s.estimate / tu.div : null; }) })) });
    }
    // Every point's targets with their intervals.
    if (withSla) {
      h2('Every SLA target at every point');
      const tg = pts[0].targets || [];
      table(axes.concat(tg.map((t) => `${t.class} ${t.metric} ${limitOf(t) ? limitOf(t).op + ' ' + sig(limitOf(t).v) : ''}`), ['all hold']),
        pts.map((p) => axes.map((a) => p.values[a]).concat((p.targets || []).map((t) => ({ text: t.estimate == null ? 'no data ?' : `${sig(t.estimate)} [${sig(t.ci[0])}, ${sig(t.ci[1])}]${targetVerdict(t) === 'undecided' ? ' ?' : ''}`, cls: targetVerdict(t) })), [{ text: verdictWord[pointVerdict(p)], cls: pointVerdict(p) }])));
    } else {
      missing('The scenario has no sla block: no limits to draw and no feasible range.');
    }
    if (sc) void sc;
  }

  // ---- check ----
  function renderCheck() {
    h2(R.pass ? 'All SLAs hold' : 'SLA FAILED');
    note('A target holds only when its whole confidence interval is on the right side of the limit, so a lucky point estimate never passes.');
    for (const s of R.scenarios) {
      h3(`${s.name}: ${pct(s.confidence)} confidence, ${s.replications} replications, seed ${s.seed}`);
      const t = table(['class', 'metric', 'limit', 'estimate', 'interval', 'verdict'],
        s.targets.map((t) => {
          const l = limitOf(t);
          const f = isShare(t.metric) ? pct : (x) => sig(x, 5);
          const lf = isWaitMetric(t.metric) ? duration : isShare(t.metric) ? pct : (x) => trimZeros(sig(x, 5));
          return [{ text: t.class, swatch: t.class }, t.metric, l ? `${l.op} ${lf(l.v)}` : '–', f(t.estimate), `[${f(t.ci[0])}, ${f(t.ci[1])}]`, { text: t.pass ? 'holds' : t.verdict === 'undecided' ? 'UNDECIDED' : 'FAILS', cls: t.pass ? 'pass' : 'fail' }];
        }));
      t.classList.add('check');
      for (const tg of s.targets) if (tg.reason) missing(`${tg.class} ${tg.metric}: ${tg.verdict}: ${tg.reason}`);
      charts.push({ title: `check table ${s.name}`, points: s.targets.length, u: null });
    }
  }

  // ---- fit: the log against the fitted scenario ----
  function renderFit() {
    h2(`Fit of ${R.log}: ${R.users} users over ${duration(R.span_s)}`);
    const segs = R.arrivals || [];
    const apm = R.arrivals_per_minute || [];
    if (apm.length) {
      const xs = apm.map((_, i) => i);
      // The fitted rate at each minute's middle, in users a minute.
      const fitted = xs.map((i) => {
        const t = 60 * i + 30;
        const g = segs.find((x) => t >= x.start_s && t < x.start_s + x.duration_s);
        return g ? 60 * g.rate_per_s.value : null;
      });
      chart({ title: 'Arrivals per minute against the fitted rate', xLabel: 'minute since the first user', yLabel: 'users a minute', x: xs, xInteger: true, yMin: 0,
        note: 'Dots: users who joined in each minute of the log. Line: the fitted constant-rate segments (change points by PELT), times 60.',
        series: [{ label: 'log', colour: ALL, noLine: true, points: true, y: apm }, { label: 'fitted rate', colour: OTHER[0], y: fitted }] });
    }
    table(['start', 'duration', 'arrivals', 'rate (users/s)', '95% interval'],
      segs.map((g) => [duration(g.start_s), duration(g.duration_s), String(g.arrivals), sig(g.rate_per_s.value, 4), `[${sig(g.rate_per_s.lo, 4)}, ${sig(g.rate_per_s.hi, 4)}]`]));
    for (const c of R.classes || []) {
      const km = c.kaplan_meier || {};
      if (!km.t_s || !km.t_s.length) { missing(`${c.name}: nobody gave up, so there is no patience to fit or draw.`); continue; }
      const tu = timeUnit(km.t_s[km.t_s.length - 1]);
      const best = (c.patience || [])[0];
      const series = [{ label: 'Kaplan-Meier', colour: colourOf(c.name), y: km.survival, band: [km.lo, km.hi] }];
      if (best && km.fitted && km.fitted.length) series.push({ label: `fitted ${best.family}`, colour: ALL, dash: [6, 4], y: km.fitted });
      chart({ title: `Patience of ${c.name}: Kaplan-Meier against the fitted survival`, xLabel: `waited (${tu.name})`, yLabel: 'still waiting (share)', x: km.t_s.map((t) => t / tu.div), yRange: [0, 1],
        note: `${c.gave_up} gave up, ${c.released} released and ${c.waiting_at_end} still waiting (censored: their patience only exceeds their wait). Band: Greenwood's 95% pointwise interval.${best ? ` Fitted: ${best.family} by AIC.` : ' Too few give-ups to fit a family.'}`,
        series });
    }
    const ck = R.check;
    if (!ck) { missing('The log\'s waits against the fitted scenario\'s: run waitroom fit --check --html.'); return; }
    h2(ck.all_inside ? 'Every figure of the log is inside what the fitted scenario produces' : 'Figures of the log OUTSIDE what the fitted scenario produces');
    note(`${ck.replications} runs of the fitted scenario. Each interval is where one run falls (a prediction interval) at ${trimZeros(sig(100 * ck.row_level, 4))}%, so that all fall inside with ${pct(ck.family_level)} when the model is right.${ck.waiting_at_end ? ` ${ck.waiting_at_end} users still waiting when the log ends are not in its waits.` : ''}`);
    table(['class', 'figure', 'log', 'model', 'one run falls in', ''],
      ck.rows.map((r) => {
        const f = isShare(r.metric) ? pct : duration;
        return [{ text: r['class'], swatch: r['class'] }, r.metric, f(r.realised), f(r.model), `[${f(r.interval[0])}, ${f(r.interval[1])}]`, { text: r.inside ? 'inside' : 'OUTSIDE', cls: r.inside ? 'pass' : 'fail' }];
      }));
    // The log's waits per class as a CDF, with the fitted scenario's p50 and p95 intervals.
    let maxW = 0;
    for (const c of R.classes || []) for (const w of c.released_wait_percentiles_s || []) maxW = Math.max(maxW, w);
    const tu = timeUnit(maxW);
    const tables = [], ser = [], marks = [];
    for (const c of R.classes || []) {
      const q = c.released_wait_percentiles_s || [];
      if (!q.length) continue;
      tables.push([q.map((w) => w / tu.div), q.map((_, i) => i)]);
      ser.push({ label: `${c.name} (log)`, colour: colourOf(c.name) });
      for (const r of ck.rows) if (r['class'] === c.name && (r.metric === 'p50_wait_s' || r.metric === 'p95_wait_s'))
        marks.push({ lo: r.interval[0] / tu.div, hi: r.interval[1] / tu.div, y: r.metric === 'p50_wait_s' ? 50 : 95, colour: colourOf(c.name) });
    }
    if (tables.length) {
      const joined = uPlot.join(tables);
      chart({ title: 'Waits of released users: the log against the fitted scenario', xLabel: `wait (${tu.name})`, yLabel: 'released within (%)', yRange: [0, 100],
        note: 'Lines: the log\'s waits per class (its percentiles). Bars at 50% and 95%: where the fitted scenario\'s p50 and p95 fall in one run.',
        x: joined[0], series: ser.map((s2, i) => Object.assign(s2, { y: joined[i + 1] })), hbars: marks });
    }
  }

  // ---- draw ----
  try {
    header();
    ({ run: renderRun, replications: renderReplications, compare: renderCompare, sweep: renderGrid, plan: renderGrid, check: renderCheck, fit: renderFit }[D.kind])();
    scenarioDetails();
    add(el('footer', { text: `waitroom ${D.report_tool_version}; charts by ${D.chart_library} (MIT licence). Drag across a chart to zoom, double-click to reset; the legend reads out the values under the cursor.` }));
  } catch (e) {
    add(el('p', { class: 'missing', text: 'The report could not be drawn: ' + e.message }));
    throw e;
  }

  window.addEventListener('beforeprint', () => { for (const c of charts) if (c.u) c.u.setSize({ width: PRINT_WIDTH, height: c.u.height }); });
  window.addEventListener('afterprint', () => { for (const c of charts) if (c.u) c.u.setSize({ width: WIDTH, height: c.u.height }); });

  // For the browser test: per chart, the data points given and the coloured pixels drawn in
  // its plot area (axes and grid are grey, so coloured pixels are data).
  window.waitroomSelfCheck = function () {
    return charts.map((c) => {
      if (!c.u) return { title: c.title, points: c.points, pixels: c.points, table: true };
      const u = c.u, ctx = u.ctx, bb = u.bbox;
      const img = ctx.getImageData(Math.round(bb.left), Math.round(bb.top), Math.max(1, Math.round(bb.width)), Math.max(1, Math.round(bb.height))).data;
      let pixels = 0;
      for (let i = 0; i < img.length; i += 4) {
        const r = img[i], g = img[i + 1], b = img[i + 2], a = img[i + 3];
        if (a < 128) continue;
        const sat = Math.max(r, g, b) - Math.min(r, g, b);
        if (sat > 60 || Math.max(r, g, b) < 90) pixels++;
      }
      return { title: c.title, points: c.points, pixels, table: false, labels: c.labels || [], unlabelled: c.unlabelled || [], undrawn: c.undrawn || [] };
    });
  };
})();
