// memgpt-local web UI: plain JavaScript, no build step, nothing fetched from elsewhere.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { agent: null, busy: false, token: localStorage.getItem("memgpt-token") };
const SECTIONS = {
  "system instructions": ["instructions", "--s-instructions"],
  "core memory": ["core memory", "--s-core"],
  "summary": ["summary", "--s-summary"],
  "messages": ["messages", "--s-messages"],
  "reply reserve": ["reply reserve", "--s-reserve"],
};

function status(text, isError = false) {
  const el = $("status");
  el.textContent = text;
  el.title = text;
  el.classList.toggle("error", isError);
}

function headers(extra = {}) {
  const h = { ...extra };
  if (state.token) h.Authorization = `Bearer ${state.token}`;
  return h;
}

async function api(method, path, body, raw = false) {
  const init = { method, headers: headers(body && !raw ? { "Content-Type": "application/json" } : {}) };
  if (body !== undefined) init.body = raw ? body : JSON.stringify(body);
  const response = await fetch(path, init);
  if (response.status === 401) {
    const token = prompt("This server needs its token:");
    if (token) {
      state.token = token;
      localStorage.setItem("memgpt-token", token);
      return api(method, path, body, raw);
    }
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.fix ? `${data.error} (${data.fix})` : data.error);
  return data;
}

function agentPath(suffix = "") {
  return `/api/agents/${encodeURIComponent(state.agent)}${suffix}`;
}

// ------------------------------------------------------------------ agents

async function loadAgents(select) {
  const agents = await api("GET", "/api/agents");
  const pick = $("agent");
  pick.innerHTML = "";
  for (const agent of agents) pick.add(new Option(agent.name, agent.name));
  if (!agents.length) {
    status("No agent yet: create one with New agent.");
    return;
  }
  state.agent = select && agents.some((a) => a.name === select) ? select : (state.agent && agents.some((a) => a.name === state.agent) ? state.agent : agents[0].name);
  pick.value = state.agent;
  await showAgent();
}

async function showAgent() {
  $("log").innerHTML = "";
  $("hits").innerHTML = "";
  await Promise.all([loadTranscript(), loadCore(), loadSources()]);
  loadContext();
}

// ------------------------------------------------------------------ chat

function addLine(kind, text) {
  const li = document.createElement("li");
  li.className = kind;
  li.textContent = text;
  $("log").appendChild(li);
  li.scrollIntoView({ block: "end" });
  return li;
}

async function loadTranscript() {
  const messages = await api("GET", agentPath("/messages?limit=60"));
  for (const m of messages) {
    if (m.role === "user") addLine("user", m.text);
    else if (m.role === "assistant" && m.function === "send_message") {
      if (m.text) addLine("step", `thought: ${m.text}`);
      addLine("assistant", (m.arguments || {}).message || "");
    } else if (m.role === "assistant" && m.function) {
      addLine("step", `${m.function}(${JSON.stringify(m.arguments || {})})${m.text ? ` · thought: ${m.text}` : ""}`);
    } else if (m.role === "function") addLine("step", `→ ${m.text.split("\n")[0]}`);
  }
}

async function* sseEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      if (data) yield JSON.parse(data);
    }
  }
}

async function send(text) {
  if (!state.agent || state.busy) return;
  state.busy = true;
  $("send").disabled = true;
  addLine("user", text);
  status("thinking…");
  let thought = null, reply = null;
  try {
    const response = await fetch(agentPath("/messages"), {
      method: "POST",
      headers: headers({ "Content-Type": "application/json" }),
      body: JSON.stringify({ message: text, stream: true }),
    });
    if (!response.ok) {
      const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
      throw new Error(data.error);
    }
    for await (const event of sseEvents(response)) {
      if (event.type === "step") { thought = null; reply = null; }
      else if (event.type === "thought") {
        thought = thought || addLine("step", "thought: ");
        thought.textContent += event.delta;
      } else if (event.type === "message") {
        reply = reply || addLine("assistant", "");
        reply.textContent += event.delta;
        reply.scrollIntoView({ block: "end" });
        status("replying…");
      } else if (event.type === "call") {
        if (event.held && reply) { reply.classList.add("held"); reply.title = `not sent: ${event.held}`; }
        if (event.function !== "send_message") addLine("step", `${event.function}(${JSON.stringify(event.arguments)}) → ${(event.result || "").split("\n")[0]}`);
      } else if (event.type === "memory") {
        for (const change of event.changes) addLine("memory", `core memory ${change}`);
      } else if (event.type === "error") throw new Error(event.error);
      else if (event.type === "done") status(event.messages.length ? "" : "the agent sent no message this turn");
    }
  } catch (err) {
    status(err.message, true);
  } finally {
    state.busy = false;
    $("send").disabled = false;
    loadCore();
    loadContext();
  }
}

// ------------------------------------------------------------------ context bar

async function loadContext() {
  if (!state.agent) return;
  try {
    const ctx = await api("GET", agentPath("/context"));
    const bar = $("context-bar"), legend = $("context-legend");
    bar.innerHTML = "";
    legend.innerHTML = "";
    const used = ctx.sections.reduce((n, s) => n + s.tokens, 0);
    for (const section of ctx.sections) {
      const [label, color] = SECTIONS[section.name] || [section.name, "--s-reserve"];
      const seg = document.createElement("div");
      seg.className = "seg";
      seg.style.width = `${(100 * section.tokens) / ctx.window}%`;
      seg.style.background = `var(${color})`;
      seg.title = `${label}: ${section.tokens} tokens`;
      seg.dataset.section = section.name;
      bar.appendChild(seg);
      const li = document.createElement("li");
      li.innerHTML = `<i style="background: var(${color})"></i>`;
      li.append(`${label} ${section.tokens}`);
      legend.appendChild(li);
    }
    for (const [at, name] of [[ctx.warning_at, "warning"], [ctx.evict_at, "eviction"]]) {
      const mark = document.createElement("div");
      mark.className = "mark";
      mark.style.left = `${(100 * at) / ctx.window}%`;
      mark.title = `${name} at ${at} tokens`;
      mark.innerHTML = `<span>${name}</span>`;
      bar.appendChild(mark);
    }
    bar.setAttribute("aria-label", `context window: ${used} of ${ctx.window} tokens used`);
    $("context-note").textContent = `${used} of ${ctx.window} tokens (${Math.round((100 * used) / ctx.window)}%)`;
  } catch (err) {
    $("context-note").textContent = `context unavailable: ${err.message}`;
  }
}

// ------------------------------------------------------------------ core memory

async function loadCore() {
  if (!state.agent) return;
  const blocks = await api("GET", agentPath("/memory/core"));
  const root = $("core");
  root.innerHTML = "";
  for (const block of blocks) {
    const wrap = document.createElement("div");
    wrap.className = "block";
    const label = document.createElement("label");
    const count = document.createElement("span");
    count.textContent = `${block.value.length}/${block.limit}`;
    label.append(block.label, count);
    const area = document.createElement("textarea");
    area.value = block.value;
    area.dataset.label = block.label;
    area.setAttribute("aria-label", `${block.label} block`);
    area.readOnly = block.read_only;
    area.oninput = () => { count.textContent = `${area.value.length}/${block.limit}`; };
    const save = document.createElement("button");
    save.type = "button";
    save.className = "quiet";
    save.textContent = `Save ${block.label}`;
    save.onclick = async () => {
      try {
        await api("PUT", agentPath(`/memory/core/${encodeURIComponent(block.label)}`), { value: area.value });
        status(`${block.label} saved`);
        loadContext();
      } catch (err) { status(err.message, true); }
    };
    wrap.append(label, area, save);
    root.appendChild(wrap);
  }
}

// ------------------------------------------------------------------ search and sources

async function search(query, kind) {
  const list = $("hits");
  list.innerHTML = "";
  try {
    const page = await api("GET", agentPath(`/search/${kind}?q=${encodeURIComponent(query)}`));
    if (!page.hits.length) list.innerHTML = "<li>nothing found</li>";
    for (const hit of page.hits) {
      const li = document.createElement("li");
      li.textContent = hit.text;
      const cite = document.createElement("cite");
      const when = new Date(hit.created_at).toLocaleString();
      cite.textContent = hit.citation ? `${hit.citation} · ${when}` : `${hit.role || hit.kind} · ${when}`;
      li.appendChild(cite);
      list.appendChild(li);
    }
  } catch (err) { status(err.message, true); }
}

async function loadSources() {
  if (!state.agent) return;
  const sources = await api("GET", agentPath("/sources"));
  const list = $("sources");
  list.innerHTML = "";
  if (!sources.length) list.innerHTML = "<li>no documents yet</li>";
  for (const source of sources) {
    const li = document.createElement("li");
    const name = document.createElement("span");
    name.textContent = `${source.path.split("/").pop()} (${source.passages} passages)`;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "quiet";
    remove.textContent = "Remove";
    remove.onclick = async () => {
      try { await api("DELETE", agentPath(`/sources/${source.id}`)); loadSources(); } catch (err) { status(err.message, true); }
    };
    li.append(name, remove);
    list.appendChild(li);
  }
}

async function upload(file) {
  status(`loading ${file.name}…`);
  try {
    const result = await api("POST", agentPath(`/sources?filename=${encodeURIComponent(file.name)}`), file, true);
    status(result.summary);
    loadSources();
    loadContext();
  } catch (err) { status(err.message, true); }
}

// ------------------------------------------------------------------ wiring

$("composer").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("message").value.trim();
  if (text) { $("message").value = ""; send(text); }
});
$("message").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("composer").requestSubmit(); }
});
$("agent").addEventListener("change", (e) => { state.agent = e.target.value; showAgent().catch((err) => status(err.message, true)); });
$("new-agent").addEventListener("click", async () => {
  const name = prompt("Name of the new agent:");
  if (!name) return;
  try { await api("POST", "/api/agents", { name }); await loadAgents(name); status(`created ${name}`); } catch (err) { status(err.message, true); }
});
$("show-steps").addEventListener("change", (e) => document.body.classList.toggle("steps", e.target.checked));
$("search-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = $("query").value.trim();
  if (q && state.agent) search(q, $("search-kind").value);
});
$("upload").addEventListener("change", (e) => { if (e.target.files[0] && state.agent) upload(e.target.files[0]); e.target.value = ""; });

loadAgents().catch((err) => status(err.message, true));
