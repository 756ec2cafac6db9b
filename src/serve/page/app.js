// tengen analysis board: the page's state, drawing and calls to the API
// of `pbrain-tengen serve` (docs/serve.md). No framework, no build step.
"use strict";

const $ = (id) => document.getElementById(id);
const LETTERS = "abcdefghijklmnopqrstuvwxyz";

const st = {
  rule: "freestyle",
  size: 15,
  moves: [],        // the game's moves, pos notation ("h8")
  cursor: 0,        // moves shown: moves.slice(0, cursor)
  toMove: "black",
  winner: null,
  over: false,
  forbidden: [],
  mode: "two",
  analyzing: false,
  stream: null,     // AbortController of the analysis stream
  info: null,       // the analysis's last event
  infoKey: "",      // the position that info belongs to
  solveLine: null,  // a winning line to draw
  graph: [],        // black's winning chance per ply
  engineBusy: false,
  resigned: null,
  gen: 0,           // bumped at every position change
};

// ---- notation --------------------------------------------------------------

function posName(x, y) { return LETTERS[x] + (y + 1); }
function parsePos(s) {
  const m = /^([a-z])(\d{1,2})$/.exec(s);
  return m ? { x: LETTERS.indexOf(m[1]), y: parseInt(m[2], 10) - 1 } : null;
}
function splitMoves(text) { return (text || "").match(/[a-z]\d{1,2}/g) || []; }
function shown() { return st.moves.slice(0, st.cursor); }
function key() { return st.rule + "/" + st.size + "/" + shown().join(""); }

// ---- messages ---------------------------------------------------------------

function showError(msg) {
  const e = $("error");
  e.textContent = msg;
  e.hidden = false;
}
function clearError() { $("error").hidden = true; $("error").textContent = ""; }

async function api(path, body, raw) {
  const opts = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": raw ? "text/plain" : "application/json" },
    body: raw ? body : JSON.stringify(body),
  };
  let r;
  try {
    r = await fetch(path, opts);
  } catch (e) {
    throw new Error("the board's server cannot be reached (" + e.message + ")");
  }
  if (!r.ok) {
    let msg = r.status + " " + r.statusText;
    try { const j = await r.json(); if (j.error) msg = j.error; } catch (_) { /* not JSON */ }
    throw new Error(msg);
  }
  return r;
}
const gameBody = (moves) => ({ rule: st.rule, size: st.size, moves: (moves || shown()).join("") });

// ---- drawing ---------------------------------------------------------------

const board = $("board");
const geo = { cell: 40, margin: 30 };

function layout() {
  const css = 640;
  // Room for the coordinates beside the edge stones (radius 0.45 cell).
  const k = st.size - 1;
  geo.margin = (0.45 * css / k + 16) / (1 + 0.9 / k);
  geo.cell = (css - 2 * geo.margin) / k;
  const dpr = window.devicePixelRatio || 1;
  board.width = css * dpr;
  board.height = css * dpr;
  const g = $("graph");
  g.width = 640 * dpr;
  g.height = 110 * dpr;
}

function cellCenter(x, y) {
  return { x: geo.margin + x * geo.cell, y: geo.margin + y * geo.cell };
}

function cellAt(px, py) {
  const x = Math.round((px - geo.margin) / geo.cell);
  const y = Math.round((py - geo.margin) / geo.cell);
  if (x < 0 || y < 0 || x >= st.size || y >= st.size) return null;
  const c = cellCenter(x, y);
  if (Math.hypot(c.x - px, c.y - py) > geo.cell * 0.5) return null;
  return { x, y };
}

function stone(ctx, x, y, colour, alpha, label, labelColour) {
  const c = cellCenter(x, y);
  const r = geo.cell * 0.45;
  ctx.globalAlpha = alpha;
  ctx.beginPath();
  ctx.arc(c.x, c.y, r, 0, 2 * Math.PI);
  ctx.fillStyle = colour === "black" ? "#111" : "#fafafa";
  ctx.fill();
  ctx.lineWidth = 1;
  ctx.strokeStyle = "#333";
  ctx.stroke();
  ctx.globalAlpha = 1;
  if (label !== undefined && label !== null) {
    ctx.fillStyle = labelColour || (colour === "black" ? "#fff" : "#111");
    ctx.font = Math.max(8, Math.floor(geo.cell * 0.38)) + "px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(String(label), c.x, c.y + 0.5);
  }
}

function other(c) { return c === "black" ? "white" : "black"; }

function draw() {
  const dpr = window.devicePixelRatio || 1;
  const ctx = board.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = "#dcb35c";
  ctx.fillRect(0, 0, 640, 640);
  ctx.strokeStyle = "#5a4318";
  ctx.lineWidth = 1;
  const n = st.size;
  for (let i = 0; i < n; i++) {
    const a = cellCenter(i, 0), b = cellCenter(i, n - 1);
    ctx.beginPath(); ctx.moveTo(a.x, a.y); ctx.lineTo(b.x, b.y); ctx.stroke();
    const c = cellCenter(0, i), d = cellCenter(n - 1, i);
    ctx.beginPath(); ctx.moveTo(c.x, c.y); ctx.lineTo(d.x, d.y); ctx.stroke();
  }
  // Coordinates as pos notation reads them: letters for x, y + 1 for rows.
  ctx.fillStyle = "#3b2c10";
  ctx.font = "11px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  for (let i = 0; i < n; i++) {
    const top = cellCenter(i, 0), left = cellCenter(0, i);
    ctx.fillText(LETTERS[i], top.x, 9);
    ctx.fillText(LETTERS[i], top.x, 631);
    ctx.fillText(String(i + 1), 10, left.y);
    ctx.fillText(String(i + 1), 630, left.y);
  }
  // Stones with their move numbers; the last one marked.
  const ms = shown();
  ms.forEach((m, i) => {
    const p = parsePos(m);
    const last = i === ms.length - 1;
    stone(ctx, p.x, p.y, i % 2 === 0 ? "black" : "white", 1, i + 1, last ? "#e0312b" : null);
  });
  // Forbidden points for black (renju).
  ctx.strokeStyle = "#c0261f";
  ctx.lineWidth = 2;
  for (const f of st.forbidden) {
    const p = parsePos(f); const c = cellCenter(p.x, p.y); const r = geo.cell * 0.22;
    ctx.beginPath();
    ctx.moveTo(c.x - r, c.y - r); ctx.lineTo(c.x + r, c.y + r);
    ctx.moveTo(c.x + r, c.y - r); ctx.lineTo(c.x - r, c.y + r);
    ctx.stroke();
  }
  // A solver's line, else the analysis's main line, as numbered ghosts;
  // then the other candidates' first moves with their scores, on top.
  const info = st.info && st.infoKey === key() ? st.info : null;
  const line = st.solveLine || (info && info.lines[0] ? info.lines[0].pv.slice(0, 10) : null);
  if (line) {
    let colour = st.toMove;
    line.forEach((m, i) => {
      const p = parsePos(m);
      if (p) stone(ctx, p.x, p.y, colour, 0.55, i + 1);
      colour = other(colour);
    });
  }
  if (info && !st.solveLine) {
    info.lines.slice(1).forEach((l) => {
      const p = l.move && parsePos(l.move);
      if (!p) return;
      const c = cellCenter(p.x, p.y);
      ctx.fillStyle = "rgba(58,110,165,0.92)";
      ctx.fillRect(c.x - geo.cell * 0.48, c.y - geo.cell * 0.24, geo.cell * 0.96, geo.cell * 0.48);
      ctx.fillStyle = "#fff";
      ctx.font = Math.max(8, Math.floor(geo.cell * 0.3)) + "px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(scoreText(l.score, l.mate), c.x, c.y + 0.5);
    });
  }
}

function scoreText(score, mate) {
  if (mate !== null && mate !== undefined) return (score > 0 ? "W" : "L") + mate;
  return (score > 0 ? "+" : "") + score;
}

function drawGraph() {
  const g = $("graph");
  const dpr = window.devicePixelRatio || 1;
  const ctx = g.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const w = 640, h = 110;
  ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, w, h);
  ctx.strokeStyle = "#bbb"; ctx.beginPath(); ctx.moveTo(0, h / 2); ctx.lineTo(w, h / 2); ctx.stroke();
  const n = Math.max(st.moves.length, 1);
  const xs = (ply) => 6 + (ply / n) * (w - 12);
  // The current ply.
  ctx.strokeStyle = "#3a6ea5";
  ctx.beginPath(); ctx.moveTo(xs(st.cursor), 0); ctx.lineTo(xs(st.cursor), h); ctx.stroke();
  ctx.strokeStyle = "#111"; ctx.lineWidth = 2; ctx.beginPath();
  let started = false;
  for (let ply = 0; ply <= st.moves.length; ply++) {
    const v = st.graph[ply];
    if (v === undefined || v === null) { started = false; continue; }
    const y = h - 4 - v * (h - 8);
    if (!started) { ctx.moveTo(xs(ply), y); started = true; } else ctx.lineTo(xs(ply), y);
    ctx.fillRect(xs(ply) - 1.5, y - 1.5, 3, 3);
  }
  ctx.stroke(); ctx.lineWidth = 1;
}

// ---- the page's text ---------------------------------------------------------

function render() {
  const ms = shown();
  let s;
  if (st.resigned) s = st.resigned + " resigned: " + other(st.resigned) + " wins";
  else if (st.winner) s = st.winner[0].toUpperCase() + st.winner.slice(1) + " wins (five in a row)";
  else if (st.over) s = "Draw: the board is full";
  else s = st.toMove[0].toUpperCase() + st.toMove.slice(1) + " to move";
  $("status").textContent = s;
  $("ply").textContent = "move " + st.cursor + " of " + st.moves.length;
  const list = $("movelist");
  list.textContent = "";
  st.moves.forEach((m, i) => {
    const li = document.createElement("li");
    li.textContent = m;
    if (i === st.cursor - 1) li.className = "current";
    else if (i >= st.cursor) li.className = "future";
    li.addEventListener("click", () => goTo(i + 1));
    list.appendChild(li);
  });
  // The box follows the board, but not while someone types in it.
  if (document.activeElement !== $("pos")) $("pos").value = ms.join("");
  $("analyze").textContent = st.analyzing ? "Stop analysis" : "Start analysis";
  $("analyze").classList.toggle("on", st.analyzing);
  const info = st.info && st.infoKey === key() ? st.info : null;
  $("depth").textContent = info ? info.depth : "-";
  $("nps").textContent = info ? info.nps.toLocaleString("en") : "-";
  $("nodes").textContent = info ? info.nodes.toLocaleString("en") : "-";
  $("time-used").textContent = info ? (info.time_ms / 1000).toFixed(1) + " s" : "-";
  $("eval").textContent = info ? scoreText(info.score, info.mate) + " (" + st.toMove + ")" : "-";
  $("chance").textContent = info ? (100 * info.win_chance).toFixed(1) + "% " + st.toMove : "-";
  $("pv").textContent = info && info.lines[0] ? "pv " + info.lines[0].pv.join(" ") : "-";
  const cands = $("candidates");
  cands.textContent = "";
  if (info && info.lines.length > 1) {
    for (const l of info.lines) {
      const li = document.createElement("li");
      li.textContent = l.move + "  " + scoreText(l.score, l.mate) + "  " + l.pv.slice(1, 8).join(" ");
      cands.appendChild(li);
    }
  }
  $("undo").disabled = st.cursor === 0;
  $("redo").disabled = st.cursor === st.moves.length;
  $("engine-move").disabled = st.engineBusy || st.over || !!st.resigned;
  draw();
  drawGraph();
}

// ---- the position ------------------------------------------------------------

function saveUrl() {
  const q = new URLSearchParams({ rule: st.rule, size: String(st.size), pos: shown().join("") });
  history.replaceState(null, "", "?" + q.toString());
}

// Asks the server for the position (legal? won? forbidden points?), then
// shows it; the analysis and the engine follow.
async function refresh() {
  const gen = ++st.gen;
  st.solveLine = null;
  $("solve-result").textContent = "-";
  let p;
  try {
    p = await (await api("/api/position", gameBody())).json();
  } catch (e) {
    showError(e.message);
    return false;
  }
  if (gen !== st.gen) return false;
  st.toMove = p.to_move;
  st.winner = p.winner;
  st.over = p.over;
  st.forbidden = p.forbidden;
  saveUrl();
  render();
  if (st.analyzing) startAnalysis();
  maybeEngine();
  return true;
}

// Plays a move at the cursor (a later line of the game is dropped).
async function play(m) {
  if (st.engineBusy) { showError("the engine is thinking: wait for its move"); return; }
  if (st.resigned) { showError("the game is over: " + st.resigned + " resigned"); return; }
  const next = shown().concat([m]);
  // The server checks the move: an error leaves the position as it was.
  try {
    await api("/api/position", gameBody(next));
  } catch (e) {
    showError(e.message);
    return;
  }
  clearError();
  if (st.moves[st.cursor] !== m) {
    st.moves = next;
    st.graph = st.graph.slice(0, st.cursor + 1);
  }
  st.cursor += 1;
  await refresh();
}

function goTo(ply) {
  ply = Math.max(0, Math.min(st.moves.length, ply));
  if (ply === st.cursor) return;
  st.cursor = ply;
  st.resigned = null;
  clearError();
  refresh();
}

function engineColour() {
  if (st.mode === "engine-white") return "white";
  if (st.mode === "engine-black") return "black";
  return null;
}

function maybeEngine() {
  if (!st.over && !st.resigned && engineColour() === st.toMove && !st.engineBusy && st.cursor === st.moves.length) {
    engineMove();
  }
}

async function engineMove() {
  if (st.engineBusy || st.over) return;
  st.engineBusy = true;
  const gen = st.gen;
  $("engine-status").textContent = "thinking...";
  render();
  try {
    const body = Object.assign(gameBody(), { time_ms: parseInt($("time").value, 10) });
    const r = await (await api("/api/move", body)).json();
    st.engineBusy = false;
    $("engine-status").textContent = "engine (" + st.toMove + "): " + r.move + ", " + scoreText(r.score, r.mate) + " for " + st.toMove + ", depth " + r.depth;
    if (gen !== st.gen) { render(); return; }
    await play(r.move);
  } catch (e) {
    st.engineBusy = false;
    $("engine-status").textContent = "";
    showError("engine move: " + e.message);
    render();
  }
}

// ---- analysis (server-sent events, read through fetch) --------------------------

function stopAnalysis() {
  if (st.stream) { st.stream.abort(); st.stream = null; }
}

async function startAnalysis() {
  stopAnalysis();
  if (st.over) { render(); return; }
  const ctl = new AbortController();
  st.stream = ctl;
  const k = key();
  const toMove = st.toMove;
  const ply = st.cursor;
  const q = new URLSearchParams({ rule: st.rule, size: String(st.size), moves: shown().join(""), lines: $("lines").value });
  let r;
  try {
    r = await api("/api/analyze?" + q.toString());
  } catch (e) {
    if (st.stream === ctl) { st.stream = null; st.analyzing = false; showError("analysis: " + e.message); render(); }
    return;
  }
  // The fetch above used no signal: abort by cancelling the reader.
  const reader = r.body.getReader();
  ctl.signal.addEventListener("abort", () => reader.cancel().catch(() => {}));
  const dec = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const chunk = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let ev = "message", data = "";
        for (const line of chunk.split("\n")) {
          if (line.startsWith("event:")) ev = line.slice(6).trim();
          else if (line.startsWith("data:")) data += line.slice(5).trim();
        }
        if (!data || st.stream !== ctl) continue;
        const d = JSON.parse(data);
        if (ev === "info") {
          st.info = d;
          st.infoKey = k;
          st.graph[ply] = toMove === "black" ? d.win_chance : 1 - d.win_chance;
          render();
        } else if (ev === "done" && d.reason === "done") {
          $("depth").textContent += " (done)";
        }
      }
    }
  } catch (_) { /* cancelled */ }
}

// ---- solver, graph, records ----------------------------------------------------

async function solve() {
  const out = $("solve-result");
  out.textContent = "solving...";
  const body = Object.assign(gameBody(), { mode: $("solve-mode").value, nodes: parseInt($("solve-nodes").value, 10) });
  const gen = st.gen;
  try {
    const r = await (await api("/api/solve", body)).json();
    if (gen !== st.gen) return;
    if (r.result === "win") {
      st.solveLine = r.line;
      out.textContent = r.attacker + " wins by " + r.mode.toUpperCase() + " in " + r.plies + " plies: " + r.line.join(" ") + " (" + r.nodes.toLocaleString("en") + " nodes)";
    } else if (r.result === "nowin") {
      out.textContent = "no " + r.mode.toUpperCase() + " win for " + r.attacker + " (proved, " + r.nodes.toLocaleString("en") + " nodes)";
    } else {
      out.textContent = "no win found within " + r.node_limit.toLocaleString("en") + " nodes";
    }
    render();
  } catch (e) {
    out.textContent = "-";
    showError("solver: " + e.message);
  }
}

async function runGraph() {
  $("graph-status").textContent = "evaluating " + (st.moves.length + 1) + " positions...";
  const body = { rule: st.rule, size: st.size, moves: st.moves.join(""), nodes: parseInt($("graph-nodes").value, 10) };
  try {
    const r = await (await api("/api/graph", body)).json();
    st.graph = r.win_chance.slice();
    $("graph-status").textContent = "";
    drawGraph();
  } catch (e) {
    $("graph-status").textContent = "";
    showError("graph: " + e.message);
  }
}

// Loads a record (pos text, PSQ or SGF) through the server's reader.
async function loadRecord(text) {
  const q = new URLSearchParams({ rule: st.rule, size: String(st.size) });
  try {
    const p = await (await api("/api/import?" + q.toString(), text, true)).json();
    clearError();
    setGame(p.rule, p.size, splitMoves(p.moves));
  } catch (e) {
    showError("cannot load the position: " + e.message);
  }
}

function setGame(rule, size, moves) {
  st.rule = rule;
  st.size = size;
  st.moves = moves;
  st.cursor = moves.length;
  st.graph = [];
  st.info = null;
  st.resigned = null;
  $("engine-status").textContent = "";
  $("rule").value = rule;
  $("size").value = String(size);
  layout();
  refresh();
}

function download(name, blob) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

async function saveRecord(format) {
  try {
    const r = await api("/api/export", Object.assign(gameBody(st.moves), { format }));
    download("tengen-" + st.rule + "-" + st.moves.length + "." + format, await r.blob());
  } catch (e) {
    showError("save: " + e.message);
  }
}

// ---- wiring --------------------------------------------------------------------

function init() {
  for (let n = 5; n <= 22; n++) {
    const o = document.createElement("option");
    o.value = String(n); o.textContent = n + "x" + n;
    $("size").appendChild(o);
  }
  const q = new URLSearchParams(location.search);
  const rule = q.get("rule") || "freestyle";
  const size = parseInt(q.get("size") || "15", 10);
  const okSize = size >= 5 && size <= 22 ? size : 15;
  $("rule").value = rule;
  if ($("rule").value !== rule) $("rule").value = "freestyle";

  board.addEventListener("click", (ev) => {
    const r = board.getBoundingClientRect();
    const c = cellAt((ev.clientX - r.left) * 640 / r.width, (ev.clientY - r.top) * 640 / r.height);
    if (!c) return;
    if (st.over) { showError("the game is over: go back a move or start a new game"); return; }
    play(posName(c.x, c.y));
  });
  $("graph").addEventListener("click", (ev) => {
    const r = $("graph").getBoundingClientRect();
    const n = Math.max(st.moves.length, 1);
    goTo(Math.round(((ev.clientX - r.left) * 640 / r.width - 6) / (640 - 12) * n));
  });
  $("first").onclick = () => goTo(0);
  $("prev").onclick = () => goTo(st.cursor - 1);
  $("next").onclick = () => goTo(st.cursor + 1);
  $("last").onclick = () => goTo(st.moves.length);
  $("undo").onclick = () => {
    if (st.cursor === 0) return;
    // Against the engine, back to a position where the person moves.
    let n = st.cursor - 1;
    const eng = engineColour();
    if (eng && n > 0 && (n % 2 === 0 ? "black" : "white") === eng) n -= 1;
    goTo(n);
  };
  $("redo").onclick = () => goTo(st.cursor + 1);
  $("new").onclick = () => { clearError(); setGame($("rule").value, parseInt($("size").value, 10), []); };
  $("rule").onchange = async () => {
    // The moves stay when they are legal under the new rule.
    const rule = $("rule").value;
    try {
      await api("/api/position", { rule, size: st.size, moves: shown().join("") });
      clearError();
      setGame(rule, st.size, shown());
    } catch (e) {
      $("rule").value = st.rule;
      showError("cannot switch to " + rule + ": " + e.message);
    }
  };
  $("size").onchange = () => { clearError(); setGame(st.rule, parseInt($("size").value, 10), []); };
  $("mode").onchange = () => { st.mode = $("mode").value; maybeEngine(); };
  $("engine-move").onclick = () => engineMove();
  $("resign").onclick = () => { if (!st.over) { st.resigned = st.toMove; stopAnalysis(); st.analyzing = false; render(); } };
  $("analyze").onclick = () => {
    st.analyzing = !st.analyzing;
    if (st.analyzing) { clearError(); startAnalysis(); } else stopAnalysis();
    render();
  };
  $("lines").onchange = () => { if (st.analyzing) startAnalysis(); };
  $("solve").onclick = () => solve();
  $("graph-run").onclick = () => runGraph();
  $("load").onclick = () => loadRecord($("pos").value);
  $("pos").addEventListener("keydown", (ev) => { if (ev.key === "Enter") loadRecord($("pos").value); });
  $("file").onchange = async () => {
    const f = $("file").files[0];
    if (!f) return;
    if (f.size > 1 << 20) { showError("that file is over 1 MiB: not a game record"); return; }
    await loadRecord(await f.text());
    $("file").value = "";
  };
  $("save-psq").onclick = () => saveRecord("psq");
  $("save-sgf").onclick = () => saveRecord("sgf");
  $("save-png").onclick = () => board.toBlob((b) => download("tengen-" + st.moves.length + ".png", b), "image/png");
  $("copy-link").onclick = async () => {
    try { await navigator.clipboard.writeText(location.href); $("engine-status").textContent = "link copied"; }
    catch (_) { showError("the browser refused the clipboard: the link is the address bar's"); }
  };
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
    if (ev.key === "ArrowLeft") goTo(st.cursor - 1);
    else if (ev.key === "ArrowRight") goTo(st.cursor + 1);
    else if (ev.key === "Home") goTo(0);
    else if (ev.key === "End") goTo(st.moves.length);
  });
  window.addEventListener("pagehide", stopAnalysis);

  const pos = q.get("pos");
  if (pos) {
    st.rule = $("rule").value; st.size = okSize;
    loadRecord(pos);
  } else {
    setGame($("rule").value, okSize, []);
  }
}

// For tests and other front ends: where a cell is on the canvas (CSS
// pixels from its top-left corner), and the state.
window.tengenBoard = {
  cellCenter: (x, y) => { const c = cellCenter(x, y); const r = board.getBoundingClientRect(); return { x: c.x * r.width / 640, y: c.y * r.height / 640 }; },
  state: st,
};

init();
