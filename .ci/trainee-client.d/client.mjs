// The trainee's side of /mcp through the TypeScript MCP SDK, as Claude or
// ChatGPT would use it: connects with a trainee's OAuth access token as the
// bearer, lists the tools, calls every trainee tool with sensible
// arguments on the demo's data, checks that a training:read-only grant is
// refused log_workout and told the scope, that another trainee's session is
// not found, then reads the resources and gets the prompts. Exits 1 on the
// first failed check, printing what came back.
//
//   MCP_URL=http://127.0.0.1:PORT/mcp TRAINEE_TOKEN=pf_at_… READONLY_TOKEN=pf_at_… \
//   TRAINEE_PHONE=050-300-0000 STUDIO_KEY=pf_live_… node client.mjs
//
// The studio key only finds, through the lane, another trainee's session.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const env = (name) => {
  const v = process.env[name];
  if (!v) { console.error(`trainee-client: ${name} is not set`); process.exit(2); }
  return v;
};
const url = new URL(env('MCP_URL'));

function fail(msg, got) {
  console.error(`FAIL ${msg}`);
  if (got !== undefined) console.error(JSON.stringify(got, null, 2).slice(0, 4000));
  process.exit(1);
}

async function connect(token) {
  const client = new Client({ name: 'perform-trainee-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

// The trainee tools (internal/tools, the trainee set), each of which must be
// listed for a grant of every trainee scope and answer without an error.
const traineeTools = [
  'get_training_overview', 'list_sessions', 'get_session_details', 'log_workout', 'create_planned_session',
  'modify_training_session', 'swap_exercise', 'get_active_program', 'list_programs', 'get_benchmarks',
  'record_benchmark', 'get_body_analysis', 'log_measurement', 'daily_check_in', 'record_injury', 'manage_goals',
  'get_coach_insight', 'get_weekly_debrief', 'search_training_resources', 'get_onboarding_status',
  'update_training_profile', 'log_feedback', 'get_my_plan', 'list_my_forms', 'log_weight',
];
// Coach tools a trainee must never see.
const coachOnly = ['search_trainees', 'find_trainee_by_phone', 'list_coaches', 'create_task', 'assign_plan', 'send_form'];

const day = (offset) => { const d = new Date(); d.setUTCDate(d.getUTCDate() + offset); return d.toISOString().slice(0, 10); };

// ids finds every string under key in v (the ids an answer names).
function ids(v, key, out = []) {
  if (Array.isArray(v)) v.forEach((x) => ids(x, key, out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) {
    if (k === key && typeof x === 'string') out.push(x); else ids(x, key, out);
  }
  return out;
}

// otherSession is a session of another trainee of the studio, found with the studio key.
async function otherSession() {
  const lane = new URL('/v1/automation', url);
  const get = async (path) => {
    const res = await fetch(lane + path, { headers: { Authorization: `Bearer ${env('STUDIO_KEY')}` } });
    if (!res.ok) fail(`GET ${path} with the studio key answered ${res.status}`, await res.text());
    return res.json();
  };
  const self = await get(`/trainees/by-phone/${encodeURIComponent(env('TRAINEE_PHONE'))}`);
  const all = await get('/trainees/search?limit=10');
  for (const id of ids(all, 'id').filter((x) => x.startsWith('trn_') && !JSON.stringify(self).includes(x))) {
    const s = ids(await get(`/trainees/${id}/sessions?limit=1`), 'id').find((x) => x.startsWith('ses_'));
    if (s) return s;
  }
  fail('found no session of another trainee');
}

const textOf = (r) => (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// Each tool's arguments are taken from candidates by the names its input
// schema has, so a renamed optional argument does not break the run.
let schemas = {};
const fit = (name, candidates) => {
  const props = schemas[name]?.properties;
  if (!props) return candidates;
  return Object.fromEntries(Object.entries(candidates).filter(([k]) => k in props));
};

async function call(client, name, args) {
  args = fit(name, args);
  let r;
  try { r = await client.callTool({ name, arguments: args }); } catch (e) { fail(`${name} threw: ${e.message}`, args); }
  if (r.isError) fail(`${name} answered an error: ${textOf(r)}`, args);
  const answer = r.structuredContent ?? JSON.parse(textOf(r) || 'null');
  const size = JSON.stringify(answer).length;
  console.log(`ok   ${name.padEnd(26)} ${String(size).padStart(6)} chars`);
  return answer;
}

const me = await connect(env('TRAINEE_TOKEN'));
const { tools } = await me.listTools();
const names = tools.map((t) => t.name);
schemas = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
for (const t of traineeTools) if (!names.includes(t)) fail(`tools/list lacks the trainee tool ${t}`, names);
for (const t of coachOnly) if (names.includes(t)) fail(`tools/list shows the coach tool ${t} to a trainee`, names);
for (const t of tools) if (t.inputSchema?.properties?.traineeId) fail(`${t.name} takes a traineeId; trainee tools act on the caller`, t.inputSchema);
console.log(`ok   tools/list: ${names.length} tools, the trainee set and no coach tool`);

// Reads first, then writes built on what they answered.
const called = new Set();
const c = async (name, args = {}) => { called.add(name); return call(me, name, args); };
await c('get_training_overview');
const sessions = await c('list_sessions', {});
const planned = await call(me, 'list_sessions', { status: 'planned', from: day(1) });
const sessionId = ids(sessions, 'id').find((x) => x.startsWith('ses_'));
if (!sessionId) fail('list_sessions named no session of the demo trainee', sessions);
await c('get_session_details', { sessionId });
await c('get_active_program');
await c('list_programs');
const benchmarks = await c('get_benchmarks');
await c('get_body_analysis');
await c('get_coach_insight');
await c('get_weekly_debrief');
await c('search_training_resources', { q: 'squat', query: 'squat' });
await c('get_onboarding_status');
await c('get_my_plan');
await c('list_my_forms');

const plannedNew = await c('create_planned_session', {
  date: day(3), sport: 'strength', title: 'Lower body', durationMin: 50,
  exercises: [{ exerciseId: 'back-squat', sets: 4, reps: 6 }, { exerciseId: 'romanian-deadlift', sets: 3, reps: 8 }],
});
const newId = ids(plannedNew, 'id').find((x) => x.startsWith('ses_'));
if (!newId) fail('create_planned_session named no session', plannedNew);
await c('modify_training_session', { sessionId: newId, operation: 'reduce_volume', percent: 25 });
await c('swap_exercise', { sessionId: newId, exerciseId: 'back-squat' });
const upcoming = ids(planned, 'id').find((x) => x.startsWith('ses_')) ?? newId;
console.log(`     (planned sessions ahead: ${ids(planned, 'id').length}; reschedule ${upcoming})`);
await call(me, 'modify_training_session', { sessionId: upcoming, operation: 'reschedule', date: day(5) });
await c('log_workout', {
  date: day(0), sport: 'strength', title: 'Upper body', durationMin: 45, rpe: 7,
  exercises: [{ exerciseId: 'bench-press', sets: [{ reps: 8, loadKg: 50 }, { reps: 8, loadKg: 50 }, { reps: 6, loadKg: 55 }] }],
  feedback: 'Felt strong today',
});
await c('record_benchmark', { name: 'Plank hold', unit: 's', direction: 'higher', value: 95 });
await c('log_measurement', { waistCm: 81.5, restingHr: 58 });
await c('log_weight', { weightKg: 72.4 });
await c('daily_check_in', { readiness: 7, soreness: 3, sleepHours: 7.5, mood: 4, stress: 2 });
await c('record_injury', { area: 'knee', side: 'left', severity: 2, notes: 'A twinge on the stairs' });
await c('manage_goals', { action: 'list' });
const goal = await call(me, 'manage_goals', { action: 'create', title: 'Train three times a week', kind: 'consistency', targetValue: 3 });
const goalId = ids(goal, 'id').find((x) => x.startsWith('gol_'));
if (goalId) await call(me, 'manage_goals', { action: 'complete', goalId });
await c('update_training_profile', { sessionMinutes: 50, experience: 'intermediate', availability: [1, 3, 5] });
const thanks = 'The new program is great, thank you.';
await c('log_feedback', { text: thanks, message: thanks, feedback: thanks, rating: 5 });
for (const t of traineeTools) if (!called.has(t)) fail(`the run did not call ${t}`);
console.log(`ok   every trainee tool (${traineeTools.length}) answered (benchmarks seen: ${ids(benchmarks, 'id').length})`);

// Another trainee's session is not found.
const other = await me.callTool({ name: 'get_session_details', arguments: { sessionId: await otherSession() } });
if (!other.isError || !/not found|no session/i.test(textOf(other))) fail("another trainee's session was not answered as not found", other);
console.log("ok   another trainee's session is not found");

// Resources and templates, read through the lane with this bearer.
const { resources } = await me.listResources();
const uris = resources.map((r) => r.uri);
for (const want of ['perform://coach/persona', 'perform://methodologies']) {
  if (!uris.includes(want)) fail(`resources/list lacks ${want}`, uris);
}
const { resourceTemplates } = await me.listResourceTemplates();
const templates = resourceTemplates.map((t) => t.uriTemplate);
for (const want of ['perform://sessions/{id}', 'perform://programs/{id}']) {
  if (!templates.includes(want)) fail(`resources/templates/list lacks ${want}`, templates);
}
const read = async (uri) => {
  const r = await me.readResource({ uri });
  const text = r.contents?.[0]?.text ?? '';
  if (!text) fail(`${uri} read empty`, r);
  console.log(`ok   read ${uri} (${text.length} chars)`);
  return text;
};
for (const uri of uris) await read(uri);
await read(`perform://sessions/${sessionId}`);
const programIds = ids(await call(me, 'list_programs', {}), 'id').filter((x) => x.startsWith('prg_'));
if (programIds.length) await read(`perform://programs/${programIds[0]}`);

// Prompts: each named, each with its arguments, each pulling real data.
const { prompts } = await me.listPrompts();
const promptArgs = { weekly_plan_review: {}, session_debrief: {}, benchmark_check_in: {} };
for (const name of Object.keys(promptArgs)) {
  if (!prompts.some((p) => p.name === name)) fail(`prompts/list lacks ${name}`, prompts.map((p) => p.name));
}
const benchmarkName = JSON.stringify(benchmarks).match(/"name":"([^"]+)"/)?.[1];
if (benchmarkName) promptArgs.benchmark_check_in = { benchmark: benchmarkName };
promptArgs.session_debrief = { sessionId };
for (const [name, args] of Object.entries(promptArgs)) {
  const p = await me.getPrompt({ name, arguments: args });
  const text = p.messages.map((m) => m.content?.text ?? '').join('\n');
  if (!p.messages.length || text.length < 40) fail(`prompt ${name} framed nothing`, p);
  console.log(`ok   prompt ${name} (${p.messages.length} messages, ${text.length} chars)`);
}
await me.close();

// A training:read-only grant: reads work, log_workout is refused and names training:write.
const ro = await connect(env('READONLY_TOKEN'));
await call(ro, 'list_sessions', {});
let denied;
try {
  denied = await ro.callTool({ name: 'log_workout', arguments: { sport: 'running', durationMin: 20 } });
} catch (e) {
  denied = { isError: true, content: [{ type: 'text', text: e.message }] };
}
if (!denied.isError || !textOf(denied).includes('training:write')) fail('a training:read grant was not refused log_workout naming training:write', denied);
// The refusal is HTTP 403 whose challenge names the scope, for a client to ask the person again.
const raw = await fetch(url, {
  method: 'POST',
  headers: { Authorization: `Bearer ${env('READONLY_TOKEN')}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'log_workout', arguments: { sport: 'running', durationMin: 20 } } }),
});
const challenge = raw.headers.get('www-authenticate') ?? '';
if (raw.status !== 403 || !challenge.includes('error="insufficient_scope"') || !challenge.includes('scope="training:write"')) {
  fail(`the refusal is ${raw.status} with WWW-Authenticate ${challenge}`);
}
console.log(`ok   training:read only: log_workout refused (403, ${challenge.match(/scope="[^"]*"/)[0]}): ${textOf(denied).slice(0, 160)}`);
await ro.close();
console.log('trainee-client: all checks passed');
