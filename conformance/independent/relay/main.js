// relay: a streamjoin system under test written from SPEC.md and PROTOCOL.md alone.
// Run as `node conformance/independent/relay/main.js`; it speaks protocol 2 on
// stdin/stdout at the levels operator, cluster and faults. SJ_BUG=NAME injects
// one of the bugs of bugs.js. It imports nothing from the project.

import { activeBug } from './bugs.js';
import { Cluster, NotEnabled } from './cluster.js';
import { Operator, TIME_LIMIT } from './join.js';

const LEVELS = ['operator', 'cluster', 'faults'];
const FAULTS = new Set(['crash', 'restart', 'pause', 'resume', 'failover', 'duplicateInstall', 'duplicateRelease']);
const KEY = { key: ['string', true] };
// The body of each request type: field -> [type, required]
const BODIES = {
  init: { protocol: ['protocol', true], level: ['level', true], config: ['object', true] },
  record: { record: ['record', true] },
  freeze: { key: ['string', true], to: ['string', true] },
  persist: KEY,
  install: KEY,
  release: KEY,
  abort: KEY,
  duplicateInstall: KEY,
  duplicateRelease: KEY,
  commit: { key: ['string', true], crashAfterFence: ['boolean', false] },
  failover: { key: ['string', true], to: ['string', true], crashAfterFence: ['boolean', false] },
  checkpoint: { worker: ['string', true], key: ['string', true] },
  crash: { node: ['string', true] },
  restart: { node: ['string', true] },
  pause: { worker: ['string', true] },
  resume: { worker: ['string', true] },
  inspect: {},
};

class ProtocolError extends Error {
  constructor(code, text) {
    super(text);
    this.code = code;
  }
}

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const has = (object, name) => Object.hasOwn(object, name);

function exactFields(where, object, required, optional = []) {
  if (!isObject(object)) throw new ProtocolError(12, `${where} must be an object`);
  for (const name of required) if (!has(object, name)) throw new ProtocolError(12, `${where} must have required property '${name}'`);
  for (const name of Object.keys(object)) {
    if (!required.includes(name) && !optional.includes(name)) throw new ProtocolError(12, `${where} has an unknown property '${name}'`);
  }
}

function checkRecord(record) {
  if (!isObject(record) || !['insert', 'retract', 'watermark'].includes(record.kind)) {
    throw new ProtocolError(12, '/record/kind must be insert, retract or watermark');
  }
  const watermark = record.kind === 'watermark';
  const strings = watermark ? ['side'] : ['key', 'side', 'id'];
  const times = watermark ? ['wm'] : ['ts', 'start', 'end'];
  exactFields('/record', record, ['kind', ...strings, ...times]);
  for (const name of strings) if (typeof record[name] !== 'string') throw new ProtocolError(12, `/record/${name} must be a string`);
  for (const name of times) if (!Number.isInteger(record[name])) throw new ProtocolError(12, `/record/${name} must be an integer`);
}

function joinConfig(config, where) {
  exactFields(where, config, ['allowedLateness', 'maxIntervalLength']);
  for (const name of ['allowedLateness', 'maxIntervalLength']) {
    const value = config[name];
    if (!Number.isInteger(value) || value < 0 || value > TIME_LIMIT)
      throw new ProtocolError(12, `${where}/${name} must be an integer in [0, 2^50]`);
  }
  return { allowedLateness: config.allowedLateness, maxIntervalLength: config.maxIntervalLength };
}

function clusterConfig(config) {
  exactFields('/config', config, ['join', 'workers', 'keys']);
  const join = joinConfig(config.join, '/config/join');
  const { workers, keys } = config;
  if (!Array.isArray(workers) || workers.length === 0 || !workers.every((w) => typeof w === 'string' && w !== '')) {
    throw new ProtocolError(12, '/config/workers must be a non-empty list of non-empty strings');
  }
  if (!Array.isArray(keys) || keys.length === 0) throw new ProtocolError(12, '/config/keys must be a non-empty list');
  keys.forEach((placement, index) => {
    exactFields(`/config/keys/${index}`, placement, ['key', 'owner']);
    if (typeof placement.key !== 'string' || placement.key === '' || typeof placement.owner !== 'string' || placement.owner === '') {
      throw new ProtocolError(12, `/config/keys/${index}: key and owner must be non-empty strings`);
    }
  });
  if (new Set(workers).size !== workers.length || workers.includes('coordinator')) {
    throw new ProtocolError(1001, "/config/workers: worker ids are unique and not 'coordinator'");
  }
  const declared = new Set();
  keys.forEach(({ key, owner }, index) => {
    if (!workers.includes(owner))
      throw new ProtocolError(1001, `/config/keys/${index}/owner: ${JSON.stringify(owner)} is not a listed worker`);
    if (declared.has(key)) throw new ProtocolError(1001, `/config/keys/${index}/key: ${JSON.stringify(key)} is declared twice`);
    declared.add(key);
  });
  return { join, workers: [...workers], keys: keys.map(({ key, owner }) => ({ key, owner })) };
}

function checkBody(request) {
  const fields = BODIES[request.type];
  const required = Object.keys(fields).filter((name) => fields[name][1]);
  exactFields('(document)', request, ['id', 'type', ...required], Object.keys(fields));
  for (const [name, [type]] of Object.entries(fields)) {
    if (!has(request, name)) continue;
    const value = request[name];
    if (type === 'string' && (typeof value !== 'string' || value === ''))
      throw new ProtocolError(12, `/${name} must be a non-empty string`);
    if (type === 'boolean' && typeof value !== 'boolean') throw new ProtocolError(12, `/${name} must be a boolean`);
    if (type === 'protocol' && value !== 2) throw new ProtocolError(12, '/protocol must be 2');
    if (type === 'level' && !LEVELS.includes(value)) throw new ProtocolError(12, '/level must be operator, cluster or faults');
    if (type === 'record') checkRecord(value);
  }
}

class Session {
  constructor(level, config) {
    this.level = level;
    if (level === 'operator') {
      const join = joinConfig(config, '/config');
      this.operator = new Operator(join.allowedLateness, join.maxIntervalLength);
    } else {
      this.cluster = new Cluster(clusterConfig(config));
    }
  }

  handle(request) {
    const { type } = request;
    if (this.level === 'operator') {
      if (type !== 'record') throw new ProtocolError(10, `${type} is not part of level operator`);
      const { outcome, changes } = this.operator.apply(request.record);
      return { type: 'record_ok', outcome, changes, retained: this.operator.retained() };
    }
    if (this.level === 'cluster' && (FAULTS.has(type) || request.crashAfterFence === true)) {
      throw new ProtocolError(10, `${type}${request.crashAfterFence ? ' with crashAfterFence' : ''} is not part of level cluster`);
    }
    if (type === 'inspect') return { type: 'inspect_ok', observation: this.cluster.observe() };
    const events = [];
    try {
      this.cluster[type](request, events);
    } catch (error) {
      if (error instanceof NotEnabled) throw new ProtocolError(22, error.message);
      throw error;
    }
    this.cluster.processEagerly(events);
    return { type: `${type}_ok`, events };
  }
}

let session = null;

function answer(line) {
  let id = null;
  try {
    let request;
    try {
      request = JSON.parse(line);
    } catch (error) {
      throw new ProtocolError(12, `not JSON: ${error.message}`);
    }
    if (!isObject(request)) throw new ProtocolError(12, 'a request is a JSON object');
    if (!Number.isSafeInteger(request.id) || request.id < 0) throw new ProtocolError(12, '/id must be a non-negative integer');
    id = request.id;
    if (typeof request.type !== 'string') throw new ProtocolError(12, '/type must be a string');
    if (!has(BODIES, request.type)) throw new ProtocolError(1000, `unknown request type ${JSON.stringify(request.type)}`);
    checkBody(request);
    if (request.type === 'init') {
      session = new Session(request.level, request.config);
      const version = activeBug === '' ? '1.0' : `1.0+${activeBug}`;
      return { in_reply_to: id, type: 'init_ok', protocol: 2, implementation: { name: 'relay', version }, levels: LEVELS };
    }
    if (session === null) throw new ProtocolError(1002, 'no session: send init first');
    return { in_reply_to: id, ...session.handle(request) };
  } catch (error) {
    if (error instanceof ProtocolError) return { in_reply_to: id, type: 'error', code: error.code, text: error.message };
    process.stderr.write(`relay: internal error: ${error?.stack ?? error}\n`);
    return { in_reply_to: id, type: 'error', code: 1003, text: `internal error: ${error?.message ?? error}` };
  }
}

// Lines are split on raw bytes so that a line that is not UTF-8 is refused, not repaired.
const decoder = new TextDecoder('utf-8', { fatal: true });
let pending = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  const out = [];
  for (let end = pending.indexOf(10); end >= 0; end = pending.indexOf(10)) {
    const bytes = pending.subarray(0, end);
    pending = pending.subarray(end + 1);
    let line;
    try {
      line = decoder.decode(bytes).replace(/\r$/, '');
    } catch {
      out.push(JSON.stringify({ in_reply_to: null, type: 'error', code: 12, text: 'the line is not UTF-8' }));
      continue;
    }
    if (line.trim() === '') continue;
    out.push(JSON.stringify(answer(line)));
  }
  if (out.length > 0) process.stdout.write(`${out.join('\n')}\n`);
});
