// The Babylon scorer page: photo -> /v1/score, corrections -> /v1/score/garden, players -> /v1/rank.
// Plain JavaScript, no build step, nothing loaded from another site.
"use strict";

const FORMAT = "babylon-garden/1";
const FLOWERS = ["white", "pink", "yellow", "blue"];
const FLOWER_HEX = { white: "#F4F1EA", pink: "#E86A9A", yellow: "#F2C12E", blue: "#4A6FD1" };
const CELLS_PER_KIND = { statue: 1, fountain: 2, bridge: 3, stairs: 2, belvedere: 1 };
const KIND_LETTER = { statue: "S", fountain: "F", bridge: "B", stairs: "St", belvedere: "Bv" };
const CATEGORIES = [
  ["statues", "Statues (1 × level)"], ["fountains", "Fountains (3 × level)"],
  ["bridges", "Bridges (3 × level)"], ["stairs", "Stairs (sum of levels)"],
  ["decoration_sets", "Decoration sets (4 each)"], ["flower_sets", "Flower sets (4 each)"],
  ["belvederes", "Belvederes (1 each)"], ["highest_level", "Highest level (2 × level)"],
];
const MAX_LEVEL = 12;
const GRID = 8;
const SVG_NS = "http://www.w3.org/2000/svg";

const $ = (id) => document.getElementById(id);
let nextId = 1;
let players = [];
let current = 0;
let selection = null; // {type: "tile"|"deco", id} or {type: "cell", r, c}
let labelsEnabled = false; // the service keeps labelled photos (babylon serve --labels DIR)

function newPlayer() {
  return {
    name: `Player ${players.length + 1}`, garden: null, read: null, removed: [], photo: null,
    score: null, findings: [], warnings: [], confidence: null, error: null, seq: 0,
  };
}

// --- the garden: babylon-garden/1 JSON <-> pieces the page can track through corrections ----------

function fromJson(g, fromReading) {
  const tile = (t) => ({
    id: nextId++, row: t.row, col: t.col, level: t.level, flower: t.flower, symbols: t.symbols ?? null,
    orig: fromReading ? { level: t.level, flower: t.flower } : null,
  });
  const deco = (d) => ({
    id: nextId++, kind: d.kind, cells: d.cells.map((c) => [c[0], c[1]]),
    level: d.level ?? null, levels: d.levels ? [...d.levels] : null,
    orig: fromReading ? { kind: d.kind } : null,
  });
  return {
    board_flower: g.board_flower ?? null,
    tiles: (g.tiles || []).map(tile),
    decorations: (g.decorations || []).map(deco),
  };
}

function toJson(garden) {
  const out = { format: FORMAT };
  if (garden.board_flower) out.board_flower = garden.board_flower;
  out.tiles = garden.tiles.map((t) => {
    const o = { row: t.row, col: t.col, level: t.level, flower: t.flower };
    if (t.symbols) o.symbols = t.symbols;
    return o;
  });
  out.decorations = garden.decorations.map((d) => {
    const o = { kind: d.kind, cells: d.cells };
    if (d.levels) o.levels = d.levels; else o.level = d.level;
    return o;
  });
  return out;
}

const covers = (t, r, c) => t.row <= r && r <= t.row + 1 && t.col <= c && c <= t.col + 1;
const topTile = (garden, r, c) =>
  garden.tiles.filter((t) => covers(t, r, c)).reduce((a, t) => (!a || t.level > a.level ? t : a), null);
const cellLevels = (d) => d.cells.map((c, i) => [c, d.levels ? d.levels[i] : d.level]);
const topLevel = (d) => Math.max(...cellLevels(d).map(([, l]) => l));
const tileChanged = (t) => !t.orig || t.orig.level !== t.level || t.orig.flower !== t.flower;
const decoChanged = (d) => !d.orig || d.orig.kind !== d.kind;

// --- talking to the service -----------------------------------------------------------------------

async function api(path, options) {
  let response;
  try {
    response = await fetch(path, options);
  } catch (e) {
    throw new Error("the service cannot be reached");
  }
  let body = null;
  try { body = await response.json(); } catch (e) { /* not JSON */ }
  if (!response.ok) throw new Error((body && body.detail) || `the service answered ${response.status}`);
  return body;
}

async function rescore(player) {
  if (!player.garden) return;
  const seq = ++player.seq;
  try {
    const result = await api("/v1/score/garden", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(toJson(player.garden)),
    });
    if (seq !== player.seq) return; // a later correction already asked again
    player.score = result.score;
    player.findings = result.findings;
    player.error = null;
  } catch (e) {
    if (seq !== player.seq) return;
    player.error = e.message;
  }
  render();
  rerank();
}

let rankSeq = 0;
async function rerank() {
  const scored = players.filter((p) => p.garden);
  if (scored.length < 2) { $("ranking-box").hidden = true; return; }
  const seq = ++rankSeq;
  const names = uniqueNames();
  try {
    const result = await api("/v1/rank", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        players: players.flatMap((p, i) => (p.garden ? [{ name: names[i], garden: toJson(p.garden) }] : [])),
      }),
    });
    if (seq !== rankSeq) return;
    const list = $("ranking");
    list.replaceChildren(...result.ranking.map((s) => {
      const li = document.createElement("li");
      li.dataset.place = s.place;
      li.textContent = `${s.place}. ${s.name}: ${s.score.total} points, ${s.score.tiebreak_visible_holes} visible holes`;
      return li;
    }));
    $("ranking-box").hidden = false;
  } catch (e) {
    if (seq === rankSeq) setStatus(`Ranking: ${e.message}`, true);
  }
}

function uniqueNames() {
  const seen = new Map();
  return players.map((p, i) => {
    let name = (p.name || "").trim().slice(0, 40) || `Player ${i + 1}`;
    while (seen.has(name)) name = `${name.slice(0, 36)} (${i + 1})`;
    seen.set(name, true);
    return name;
  });
}

const emptyGarden = () => ({ board_flower: null, tiles: [], decorations: [] });

async function loadFile(file) {
  const player = players[current];
  if (!file) return;
  selection = null;
  if (file.name.toLowerCase().endsWith(".json") || file.type === "application/json") {
    let data;
    try { data = JSON.parse(await file.text()); } catch (e) { setStatus(`${file.name}: not valid JSON`, true); return; }
    if (data && typeof data === "object" && !data.format && data.garden) data = data.garden;
    Object.assign(player, { garden: fromJson(data, false), read: null, removed: [], warnings: [], confidence: null, photo: null });
    setStatus(`${file.name}: garden file loaded.`);
    await rescore(player);
    return;
  }
  setStatus("Reading the photo…");
  $("status").classList.add("busy");
  const form = new FormData();
  form.append("photo", file, file.name || "photo.jpg");
  try {
    const result = await api("/v1/score?overlay=true", { method: "POST", body: form });
    Object.assign(player, {
      garden: fromJson(result.garden, true), read: result.overlay, removed: [], score: result.score, photo: file,
      findings: result.findings, warnings: result.warnings, confidence: result.confidence, error: null,
    });
    setStatus(`Read ${result.garden.tiles.length} tiles and ${result.garden.decorations.length} pieces. ` +
      "Tap anything that is wrong to correct it.");
  } catch (e) {
    setStatus(e.message, true);
  } finally {
    $("status").classList.remove("busy");
  }
  render();
  rerank();
}

function setStatus(text, isError) {
  $("status").textContent = text;
  $("status").classList.toggle("error", !!isError);
}

// --- corrections ------------------------------------------------------------------------------------

function findPiece(garden, sel) {
  if (!sel || !garden) return null;
  if (sel.type === "tile") return garden.tiles.find((t) => t.id === sel.id) || null;
  if (sel.type === "deco") return garden.decorations.find((d) => d.id === sel.id) || null;
  return null;
}

function setTileLevel(player, tile, level) {
  level = Math.max(1, Math.min(MAX_LEVEL, level));
  if (level === tile.level) return;
  // the pieces standing on this tile go up or down with it
  for (const d of player.garden.decorations) {
    d.cells.forEach(([r, c], i) => {
      if (!covers(tile, r, c)) return;
      if (d.levels && d.levels[i] === tile.level) d.levels[i] = level;
      else if (!d.levels && d.level === tile.level) d.level = level;
    });
  }
  tile.level = level;
  changed(player);
}

function removePiece(player, sel) {
  const g = player.garden;
  if (sel.type === "tile") {
    const t = g.tiles.find((x) => x.id === sel.id);
    if (t && t.orig) player.removed.push({ type: "tile", row: t.row, col: t.col, level: t.orig.level });
    g.tiles = g.tiles.filter((x) => x.id !== sel.id);
  } else {
    const d = g.decorations.find((x) => x.id === sel.id);
    if (d && d.orig) player.removed.push({ type: "deco", cells: d.cells, level: topLevel(d) });
    g.decorations = g.decorations.filter((x) => x.id !== sel.id);
  }
  selection = null;
  changed(player);
}

function addTile(player, row, col, level, flower) {
  const t = { id: nextId++, row, col, level, flower, symbols: null, orig: null };
  player.garden.tiles.push(t);
  selection = { type: "tile", id: t.id };
  changed(player);
}

function addDecoration(player, kind, start, direction) {
  const [dr, dc] = direction === "down" ? [1, 0] : [0, 1];
  const cells = [];
  for (let i = 0; i < CELLS_PER_KIND[kind]; i++) cells.push([start[0] + dr * i, start[1] + dc * i]);
  if (cells.some(([r, c]) => r < 0 || c < 0 || r >= GRID || c >= GRID)) {
    setStatus(`A ${kind} there would leave the board: choose the other direction.`, true);
    return;
  }
  const levelAt = ([r, c]) => (topTile(player.garden, r, c) || { level: 1 }).level;
  const d = { id: nextId++, kind, cells, level: null, levels: null, orig: null };
  if (kind === "stairs") d.levels = cells.map(levelAt); else d.level = levelAt(cells[0]);
  player.garden.decorations.push(d);
  selection = { type: "deco", id: d.id };
  changed(player);
}

function setKind(player, d, kind) {
  if (kind === d.kind) return;
  const levels = cellLevels(d).map(([, l]) => l);
  d.kind = kind;
  if (kind === "stairs") { d.levels = levels; d.level = null; } else { d.level = Math.max(...levels); d.levels = null; }
  changed(player);
}

function changed(player) {
  render();
  rescore(player);
}

// --- drawing ----------------------------------------------------------------------------------------

function svg(tag, attrs, text) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

const pts = (list) => list.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" ");
const isSelected = (type, id) => selection && selection.type === type && selection.id === id;

function gridAt(read, level) { return read.grid[Math.max(0, Math.min(read.grid.length - 1, level))]; }
function quad(read, level, r0, c0, r1, c1) {
  const g = gridAt(read, level);
  return [g[r0][c0], g[r0][c1], g[r1][c1], g[r1][c0]];
}
function centre(points) {
  return [points.reduce((s, p) => s + p[0], 0) / points.length, points.reduce((s, p) => s + p[1], 0) / points.length];
}

let zoomed = true; // the photo cropped to the board, so that a phone's screen shows the tiles large

function viewBox(player) {
  const read = player.read;
  if (!zoomed) return [0, 0, read.width, read.height];
  const top = Math.max(1, ...player.garden.tiles.map((t) => t.level)) + 1;
  const corners = [0, top].flatMap((l) => gridAt(read, l).flat());
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  const margin = 0.06 * Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
  const x0 = Math.max(0, Math.min(...xs) - margin);
  const y0 = Math.max(0, Math.min(...ys) - margin);
  const x1 = Math.min(read.width, Math.max(...xs) + margin);
  const y1 = Math.min(read.height, Math.max(...ys) + margin);
  if (!(x1 - x0 > 10 && y1 - y0 > 10)) return [0, 0, read.width, read.height];
  return [x0, y0, x1 - x0, y1 - y0].map((v) => Math.round(v));
}

function drawStage(player) {
  const stage = $("stage");
  const read = player.read;
  if (!read || !player.garden) { stage.hidden = true; return; }
  stage.hidden = false;
  const img = $("overlay");
  const key = String(read.png.length) + read.png.slice(-32);
  if (img.dataset.key !== key) {
    img.dataset.key = key;
    img.dataset.loaded = "";
    img.onload = () => { img.dataset.loaded = "1"; };
    img.setAttribute("width", read.width);
    img.setAttribute("height", read.height);
    img.setAttribute("href", `data:image/png;base64,${read.png}`);
  }
  $("hits").setAttribute("viewBox", viewBox(player).join(" "));
  $("zoom").textContent = zoomed ? "Show the whole photo" : "Zoom to the board";
  const nodes = [];
  const cellSize = Math.hypot(...[0, 1].map((k) => gridAt(read, 0)[0][1][k] - gridAt(read, 0)[0][0][k])) || 20;
  for (let r = 0; r < GRID; r++) {
    for (let c = 0; c < GRID; c++) {
      const el = svg("polygon", { points: pts(quad(read, 0, r, c, r + 1, c + 1)), class: "hit cell" });
      if (selection && selection.type === "cell" && selection.r === r && selection.c === c) el.classList.add("selected");
      el.dataset.r = r; el.dataset.c = c;
      nodes.push(el);
    }
  }
  for (const x of player.removed) {
    const q = x.type === "tile" ? quad(read, x.level, x.row, x.col, x.row + 2, x.col + 2)
      : x.cells.map(([r, c]) => centre(quad(read, x.level, r, c, r + 1, c + 1)));
    const m = centre(q);
    const s = cellSize * 0.4;
    nodes.push(svg("path", { d: `M${m[0] - s},${m[1] - s}L${m[0] + s},${m[1] + s}M${m[0] + s},${m[1] - s}L${m[0] - s},${m[1] + s}`, class: "removed" }));
    if (x.type === "tile") nodes.push(svg("polygon", { points: pts(q), class: "removed" }));
  }
  const tiles = [...player.garden.tiles].sort((a, b) => a.level - b.level);
  for (const t of tiles) {
    const q = quad(read, t.level, t.row, t.col, t.row + 2, t.col + 2);
    const el = svg("polygon", { points: pts(q), class: "hit tile" });
    Object.assign(el.dataset, { id: t.id, row: t.row, col: t.col, level: t.level });
    if (tileChanged(t)) el.classList.add("changed");
    if (isSelected("tile", t.id)) el.classList.add("selected");
    nodes.push(el);
    if (tileChanged(t)) {
      const [x, y] = centre(q);
      nodes.push(svg("text", { x, y, class: "badge", "font-size": cellSize * 0.5 }, `L${t.level}`));
    }
  }
  for (const d of player.garden.decorations) {
    const spots = cellLevels(d).map(([[r, c], l]) => centre(quad(read, l, r, c, r + 1, c + 1)));
    for (const [x, y] of spots) {
      const el = svg("circle", { cx: x, cy: y, r: cellSize * 0.3, class: "hit deco" });
      el.dataset.id = d.id;
      if (decoChanged(d)) el.classList.add("changed");
      if (isSelected("deco", d.id)) el.classList.add("selected");
      nodes.push(el);
    }
    if (decoChanged(d)) {
      const [x, y] = spots[0];
      nodes.push(svg("text", { x, y, class: "badge", "font-size": cellSize * 0.4 }, KIND_LETTER[d.kind]));
    }
  }
  $("hit-layer").replaceChildren(...nodes);
  const notes = [];
  if (player.confidence !== null) notes.push(`Read with confidence ${Math.round(player.confidence * 100)}%.`);
  for (const w of player.warnings) notes.push(w.message);
  $("reading-info").textContent = notes.join(" ");
}

function drawPlan(player) {
  const plan = $("plan");
  const nodes = [svg("rect", { x: -4, y: -4, width: 248, height: 248, rx: 6, class: "board" })];
  const garden = player.garden || emptyGarden();
  for (let r = 0; r < GRID; r++) {
    for (let c = 0; c < GRID; c++) {
      const el = svg("rect", { x: c * 30 + 1, y: r * 30 + 1, width: 28, height: 28, class: "hit cell" });
      if (selection && selection.type === "cell" && selection.r === r && selection.c === c) el.classList.add("selected");
      el.dataset.r = r; el.dataset.c = c;
      nodes.push(el, svg("circle", { cx: c * 30 + 15, cy: r * 30 + 15, r: 4, class: "hole" }));
    }
  }
  const levels = [...new Set([...garden.tiles.map((t) => t.level), ...garden.decorations.map(topLevel)])].sort((a, b) => a - b);
  for (const level of levels) {
    for (const t of garden.tiles.filter((x) => x.level === level)) {
      const el = svg("rect", {
        x: t.col * 30 + 2, y: t.row * 30 + 2, width: 56, height: 56, rx: 3, class: "hit tile", fill: FLOWER_HEX[t.flower],
      });
      Object.assign(el.dataset, { id: t.id, row: t.row, col: t.col, level: t.level });
      if (tileChanged(t) && player.read) el.classList.add("changed");
      if (isSelected("tile", t.id)) el.classList.add("selected");
      nodes.push(el, svg("text", { x: t.col * 30 + 30, y: t.row * 30 + 36, class: "level" }, String(t.level)));
    }
    for (const d of garden.decorations.filter((x) => topLevel(x) === level)) {
      const xy = d.cells.map(([r, c]) => [c * 30 + 15, r * 30 + 15]);
      const g = svg("g", { class: "hit deco" });
      g.dataset.id = d.id;
      if (isSelected("deco", d.id)) g.classList.add("selected");
      if (xy.length > 1) g.append(svg("polyline", { points: pts(xy), class: "piece-line" }));
      for (const [x, y] of xy) g.append(svg("circle", { cx: x, cy: y, r: 8, class: "piece" }));
      const [x, y] = xy[0];
      g.append(svg("text", { x, y: y + 3.5, class: "piece-letter" }, KIND_LETTER[d.kind]));
      nodes.push(g);
    }
  }
  plan.replaceChildren(...nodes);
}

function option(value, label, selected) {
  const o = document.createElement("option");
  o.value = value; o.textContent = label; o.selected = !!selected;
  return o;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else if (k === "dataset") Object.assign(e.dataset, v); else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

function addTileForm(player, row, col, level) {
  const r = el("input", { type: "number", min: 0, max: GRID - 2, value: Math.min(row, GRID - 2), id: "add-row" });
  const c = el("input", { type: "number", min: 0, max: GRID - 2, value: Math.min(col, GRID - 2), id: "add-col" });
  const l = el("input", { type: "number", min: 1, max: MAX_LEVEL, value: level, id: "add-level" });
  const f = el("select", { id: "add-flower" }, ...FLOWERS.map((x) => option(x, x)));
  const go = () => {
    const n = (x, lo, hi) => Math.max(lo, Math.min(hi, parseInt(x.value, 10) || lo));
    addTile(player, n(r, 0, GRID - 2), n(c, 0, GRID - 2), n(l, 1, MAX_LEVEL), f.value);
  };
  return el("fieldset", {}, el("legend", {}, "Add a missed tile (top-left cell)"),
    el("label", {}, "row ", r), el("label", {}, "column ", c), el("label", {}, "level ", l), el("label", {}, "flower ", f),
    el("button", { type: "button", id: "add-tile", onclick: go }, "Add tile"));
}

function drawEditor(player) {
  const box = $("editor");
  const body = $("editor-body");
  const piece = findPiece(player.garden, selection);
  if (!player.garden || !selection || (selection.type !== "cell" && !piece)) { box.hidden = true; return; }
  box.hidden = false;
  const parts = [];
  if (selection.type === "tile") {
    const t = piece;
    $("editor-title").textContent = `${t.flower[0].toUpperCase()}${t.flower.slice(1)} tile at row ${t.row}, column ${t.col}`;
    parts.push(el("div", { class: "row" }, "Level ",
      el("button", { type: "button", id: "level-down", "aria-label": "one level lower", onclick: () => setTileLevel(player, t, t.level - 1) }, "−"),
      el("output", { id: "level-value" }, String(t.level)),
      el("button", { type: "button", id: "level-up", "aria-label": "one level higher", onclick: () => setTileLevel(player, t, t.level + 1) }, "+")));
    parts.push(el("div", { class: "row swatches" }, "Flower ", ...FLOWERS.map((f) => el("button", {
      type: "button", class: `swatch${f === t.flower ? " on" : ""}`, style: `background:${FLOWER_HEX[f]}`,
      "aria-label": f, title: f, onclick: () => { t.flower = f; changed(player); },
    }))));
    const kind = el("select", { id: "add-kind" }, ...Object.keys(CELLS_PER_KIND).map((k) => option(k, k)));
    const field = el("select", { id: "add-field" }, ...[[0, 0, "top-left"], [0, 1, "top-right"], [1, 0, "bottom-left"], [1, 1, "bottom-right"]]
      .map(([dr, dc, name]) => option(`${t.row + dr},${t.col + dc}`, `${name} field`)));
    const dir = el("select", { id: "add-direction" }, option("right", "to the right"), option("down", "downwards"));
    parts.push(el("fieldset", {}, el("legend", {}, "Add a missed piece on this tile"), kind, field, dir,
      el("button", { type: "button", onclick: () => addDecoration(player, kind.value, field.value.split(",").map(Number), dir.value) }, "Add piece")));
    parts.push(addTileForm(player, t.row, t.col, t.level + 1));
    parts.push(el("button", { type: "button", class: "danger", id: "remove", onclick: () => removePiece(player, selection) }, "Remove this tile"));
  } else if (selection.type === "deco") {
    const d = piece;
    const where = d.cells.map(([r, c]) => `(${r}, ${c})`).join(" ");
    const kindName = `${d.kind[0].toUpperCase()}${d.kind.slice(1)}`;
    $("editor-title").textContent = `${kindName} on ${where}, level ${d.levels ? d.levels.join("-") : d.level}`;
    const same = Object.keys(CELLS_PER_KIND).filter((k) => CELLS_PER_KIND[k] === d.cells.length);
    const kind = el("select", { id: "kind", onchange: () => setKind(player, d, kind.value) }, ...same.map((k) => option(k, k, k === d.kind)));
    parts.push(el("label", { class: "row" }, "Kind ", kind));
    parts.push(el("button", { type: "button", class: "danger", id: "remove", onclick: () => removePiece(player, selection) }, "Remove this piece"));
  } else {
    const { r, c } = selection;
    const top = topTile(player.garden, r, c);
    $("editor-title").textContent = `Cell row ${r}, column ${c}${top ? ` (level ${top.level})` : " (empty)"}`;
    parts.push(addTileForm(player, r, c, top ? top.level + 1 : 1));
  }
  body.replaceChildren(...parts);
}

function drawCard() {
  const names = uniqueNames();
  const head = el("tr", {}, el("th", {}, ""), ...players.map((p, i) => el("th", { class: i === current ? "current" : "" }, names[i])));
  $("score-table").tHead.replaceChildren(head);
  const cell = (p, key, i) => el("td", { class: i === current ? "current" : "" }, p.score ? String(p.score[key]) : "–");
  $("score-table").tBodies[0].replaceChildren(...CATEGORIES.map(([key, label]) =>
    el("tr", {}, el("th", { scope: "row" }, label), ...players.map((p, i) => cell(p, key, i)))));
  const total = el("tr", { class: "total" }, el("th", { scope: "row" }, "TOTAL"), ...players.map((p, i) => {
    const td = cell(p, "total", i);
    td.id = `total-${i}`;
    if (p.score) td.dataset.total = p.score.total;
    return td;
  }));
  const holes = el("tr", {}, el("th", { scope: "row" }, "Visible holes (tie-break)"),
    ...players.map((p, i) => cell(p, "tiebreak_visible_holes", i)));
  $("score-table").tFoot.replaceChildren(total, holes);
}

function drawFindings(player) {
  const list = $("findings");
  if (player.error) { list.replaceChildren(el("li", { class: "error" }, player.error)); return; }
  if (!player.garden) { list.replaceChildren(el("li", { class: "hint" }, "No garden yet: take a photo.")); return; }
  if (!player.findings.length) { list.replaceChildren(el("li", { class: "ok" }, "Legal: no rule broken.")); return; }
  list.replaceChildren(...player.findings.map((f) => el("li", { class: f.severity }, `${f.severity}: ${f.message}`)));
}

function drawTabs() {
  const names = uniqueNames();
  $("player-tabs").replaceChildren(...players.map((p, i) => el("button", {
    type: "button", role: "tab", "aria-selected": i === current ? "true" : "false", class: i === current ? "tab on" : "tab",
    onclick: () => { current = i; selection = null; setStatus(""); render(); },
  }, `${names[i]}${p.score ? ` · ${p.score.total}` : ""}`)));
  const name = $("player-name");
  if (document.activeElement !== name) name.value = players[current].name;
}

function drawExport(player) {
  const text = player.garden ? JSON.stringify(toJson(player.garden), null, 1) : "";
  $("garden-json").textContent = text;
  const link = $("download");
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  link.download = `${(uniqueNames()[current] || "garden").replace(/[^\w-]+/g, "_")}.json`;
  $("export").hidden = !player.garden;
  $("save-label").hidden = !(labelsEnabled && player.photo && player.garden);
}

// --- labels: the photo with its corrected garden, for `babylon calibrate` ---------------------------

async function saveLabel() {
  const player = players[current];
  if (!player.photo || !player.garden) return;
  const form = new FormData();
  form.append("photo", player.photo, player.photo.name || "photo.jpg");
  form.append("garden", JSON.stringify(toJson(player.garden)));
  try {
    const saved = await api("/v1/labels", { method: "POST", body: form });
    setStatus(`Saved as label ${saved.saved} (${saved.count} labelled photos kept for calibration).`);
  } catch (e) {
    setStatus(`The label was not saved: ${e.message}`, true);
  }
}

function render() {
  const player = players[current];
  drawTabs();
  drawStage(player);
  drawPlan(player);
  drawEditor(player);
  drawCard();
  drawFindings(player);
  drawExport(player);
}

// --- events -----------------------------------------------------------------------------------------

function onTap(event) {
  const target = event.target.closest(".hit");
  const player = players[current];
  if (!target || !player.garden) return;
  if (target.classList.contains("cell")) selection = { type: "cell", r: Number(target.dataset.r), c: Number(target.dataset.c) };
  else selection = { type: target.classList.contains("tile") ? "tile" : "deco", id: Number(target.dataset.id) };
  render();
  $("editor").scrollIntoView({ block: "nearest", behavior: "smooth" });
}

function init() {
  players.push(newPlayer());
  $("hits").addEventListener("click", onTap);
  $("plan").addEventListener("click", onTap);
  for (const id of ["camera-input", "file-input"]) {
    $(id).addEventListener("change", (e) => { loadFile(e.target.files[0]); e.target.value = ""; });
  }
  $("zoom").addEventListener("click", () => { zoomed = !zoomed; render(); });
  $("add-player").addEventListener("click", () => { players.push(newPlayer()); current = players.length - 1; selection = null; render(); });
  $("player-name").addEventListener("input", (e) => { players[current].name = e.target.value; drawTabs(); drawCard(); rerank(); });
  $("editor-close").addEventListener("click", () => { selection = null; render(); });
  $("save-label").addEventListener("click", saveLabel);
  api("/v1/labels").then((info) => { labelsEnabled = !!(info && info.enabled); render(); }, () => {});
  render();
}

init();
