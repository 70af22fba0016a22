// A client of the agent-hooks sidecar (`agent-hooks serve`) for Node 20, built-ins only: a
// kept-alive `node:http` agent over the sidecar's Unix socket (or loopback TCP with the bearer
// token), a typed outcome, and the agent-loop helpers of the Rust library's `host` module
// (`callTool`, `Turn`) with the same behaviour as the Python client. Every call returns a
// Promise: Node's I/O is asynchronous, so there is no blocking twin of each call as in Python.

import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";

/** `$AGENT_HOOKS_STATE_DIR`, else `$XDG_STATE_HOME/agent-hooks`, else `~/.local/state/agent-hooks`. */
export function stateDir(): string {
  const named = process.env.AGENT_HOOKS_STATE_DIR;
  if (named) return path.resolve(named);
  const xdg = process.env.XDG_STATE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "agent-hooks");
  return path.join(process.env.HOME || os.homedir(), ".local", "state", "agent-hooks");
}

/** The socket `agent-hooks serve` listens on for `workspace` when not told otherwise. */
export function defaultSocket(workspace: string): string {
  const root = fs.realpathSync(workspace);
  const runtime = process.env.XDG_RUNTIME_DIR;
  const dir =
    runtime && path.isAbsolute(runtime) && !process.env.AGENT_HOOKS_STATE_DIR
      ? path.join(runtime, "agent-hooks")
      : path.join(stateDir(), "run");
  const id = createHash("sha256").update(root).digest("hex").slice(0, 16);
  return path.join(dir, `${id}.sock`);
}

/** The sidecar's bearer token, from the token file in the state directory. */
export function readToken(): string {
  const file = path.join(stateDir(), "sidecar.token");
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch (e) {
    throw new AgentHooksError(
      0,
      `cannot read the sidecar's token (${file}: ${(e as Error).message}); a sidecar started with \`agent-hooks serve --listen\` makes it, or pass a token`,
    );
  }
}

export type Decision = "continue" | "block" | "ask";

export interface HookReport {
  hook: string;
  source: string;
  status: "ok" | "noop" | "blocked" | "skipped" | "timeout" | "error" | "invalid_output";
  detail: string | null;
  ms: number;
}

/** One problem a dispatch or a reload ran into (a hook's stderr, an unusable answer, a broken
 * file...): the record type of `logs/events.jsonl`, and the facts of that type the sidecar
 * sends (a field it does not send for this record is absent). */
export interface Diagnostic {
  type: string;
  hook: string | null;
  source: string | null;
  detail: string;
  /** The event being dispatched. */
  event?: string | null;
  /** The tool of a tool event. */
  tool?: string | null;
  /** The hook's exit status (a number). */
  returncode?: number | null;
  /** The signal that ended the hook. */
  signal?: number | null;
  /** The timeout the hook ran past, in seconds. */
  timeout_seconds?: number | null;
  /** Excerpts of what the hook printed. */
  stdout?: string | null;
  stderr?: string | null;
  output?: string | null;
  /** Where a configuration error is. */
  file?: string | null;
  line?: number | null;
}

export interface Outcome {
  event: string;
  decision: Decision;
  reason: string | null;
  result: unknown;
  payload: Record<string, unknown>;
  context: string[];
  notes: string[];
  warnings: string[];
  model: string | null;
  display: { summary: string; evidence: string | null } | null;
  stop: { reason: string } | null;
  hooks: HookReport[];
  /** The payload's fields hooks rewrote. */
  changed: string[];
  diagnostics: Diagnostic[];
}

export type ToolStatus = "success" | "error" | "blocked";

export interface ToolCall {
  /** What the tool threw, when it did and `reraise` is false. */
  error?: unknown;
  toolName: string;
  /** The input the tool ran with, after hooks' rewrites. */
  input: unknown;
  status: ToolStatus;
  /** What the agent sees (a hook's synthetic result when blocked). */
  result: unknown;
  blockedReason: string | null;
  notes: string[];
  warnings: string[];
  /** A hook asked to end the turn: end it after this call. */
  stop: string | null;
  outcomes: Outcome[];
}

/** The result followed by the hooks' notes: what the model reads. */
export function agentText(call: ToolCall): string {
  let text = typeof call.result === "string" ? call.result : JSON.stringify(call.result);
  for (const note of call.notes) text += "\n\n" + note;
  return text;
}

export type StopVerdict = { kind: "stop"; warnings: string[] } | { kind: "redo"; reason: string };

/** The sidecar answered {"ok": false, "error": ...} (or could not be reached: status 0). Each
 * cause has its subclass below; `errorFor` picks it from the status. */
export class AgentHooksError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`agent-hooks sidecar: ${detail} (HTTP ${status})`);
  }
}

/** 400/404/405/422: the request itself is wrong (an unknown event, a body that is not an object,
 * a tool event naming its fields `tool`/`args`/`result`). Retrying will not help. */
export class BadRequest extends AgentHooksError {}

/** 401/403: the caller is not the sidecar's owner (wrong token, another uid). */
export class Unauthorized extends AgentHooksError {}

/** 413: larger than the sidecar reads (`sidecar.max_body`); no hook ran. */
export class TooLarge extends AgentHooksError {}

/** Status 0 (the sidecar could not be reached) or 502/503/504: the hooks did not run. */
export class Unavailable extends AgentHooksError {}

/** 500: the dispatch failed inside the sidecar; the hooks' verdict is unknown. */
export class HookFailure extends AgentHooksError {}

/** How `callTool` runs one call. */
export interface CallToolOptions {
  /** "allow" when the host asked its user beforehand; otherwise an `ask` is a block. */
  onAsk?: "block" | "allow";
  /** Fields added to every event of the call, after the ones it writes itself (open-strix's
   * `channel_id`, `current_event`). Naming one of those is a `TypeError`. */
  fields?: Record<string, unknown>;
  /** Fire `transform_tool_result` between the tool and `post_tool_call` (default true). */
  transform?: boolean;
  /** Throw what the tool threw, after `post_tool_call` saw it (default true); false returns it
   * in `ToolCall.error`. */
  reraise?: boolean;
  /** The host's environment now (or what changed since the sidecar started), for command
   * hooks: over the sidecar's own, under each hook's own `env`. */
  env?: Record<string, string>;
}

/** What `dispatch` sends besides the payload. */
export interface DispatchOptions {
  /** The host's conversation, for hooks with `include_conversation` only. */
  conversation?: unknown[];
  /** The channel the host is in, whose messages those hooks get as `channel_messages`. */
  channelId?: unknown;
  /** The host's environment now, for command hooks (see `CallToolOptions.env`). */
  env?: Record<string, string>;
}

/** `GET /v1/health`. Without the token, a TCP caller learns only `ok` and `auth`. */
export interface Health {
  ok: boolean;
  workspace?: string;
  hooks?: number;
  master_enabled?: boolean;
  config_errors?: number;
  uptime_s?: number;
  auth?: string;
  warning?: string;
}

/** One declared hook, as `GET /v1/hooks` lists it (more fields come with it). */
export interface HookInfo {
  name: string;
  source: string;
  events: string[];
  [more: string]: unknown;
}

/** `GET /v1/hooks`: the master switch, every hook, and the configuration's problems. */
export interface HookList {
  ok: true;
  master_enabled: boolean;
  hooks: HookInfo[];
  diagnostics: Diagnostic[];
}

/** `POST /v1/reload`: how many hooks are in force now, and the configuration's problems. */
export interface Reloaded {
  ok: boolean;
  hooks: number;
  errors: string[];
  diagnostics: Diagnostic[];
}

// The fields `callTool` writes itself; `fields` may not name them.
const OWN_FIELDS = new Set([
  "event",
  "session_id",
  "tool_name",
  "tool_input",
  "tool_result",
  "status",
  "error",
  "error_class",
  "block_reason",
  "duration_seconds",
]);

/** The outcome of an event the sidecar refused to read (larger than its cap): no hook ran,
 * which the user is told in `warnings`; the call goes on unchanged. */
export function unheard(event: string, payload: Record<string, unknown>, why: string): Outcome {
  return {
    event,
    decision: "continue",
    reason: null,
    result: null,
    payload: { ...payload },
    context: [],
    notes: [],
    warnings: [`the hooks did not run on ${event}: ${why}`],
    model: null,
    display: null,
    stop: null,
    hooks: [],
    changed: [],
    diagnostics: [{ type: "hook_payload_too_large", hook: null, source: null, detail: why }],
  };
}

/** The error of the class that `status` means. */
export function errorFor(status: number, detail: string): AgentHooksError {
  if (status === 0 || status === 502 || status === 503 || status === 504) return new Unavailable(status, detail);
  if (status === 401 || status === 403) return new Unauthorized(status, detail);
  if (status === 413) return new TooLarge(status, detail);
  if (status >= 400 && status < 500) return new BadRequest(status, detail);
  return new HookFailure(status, detail);
}

/** A client of `agent-hooks serve` at `url`: `unix:/path/to.sock` (what `Sidecar.start` gives;
 * the default is the socket of `$AGENT_HOOKS_WORKSPACE` or the current directory), or
 * `http://127.0.0.1:PORT` for a sidecar on TCP, with the token of the token file unless `token`
 * is given (read again once when refused: the token was rotated). */
export class AgentHooks {
  readonly url: string;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  private readonly socketPath: string | null;
  private readonly base: URL | null;
  private token: string | null;

  // A hook may run up to 120 s: the timeout outlives it.
  constructor(
    url?: string,
    readonly timeoutMs = 150_000,
    private readonly fixedToken: string | null = null,
  ) {
    this.url = url ?? `unix:${defaultSocket(process.env.AGENT_HOOKS_WORKSPACE || process.cwd())}`;
    if (this.url.startsWith("unix:")) {
      this.socketPath = this.url.slice("unix:".length);
      this.base = null;
    } else {
      this.socketPath = null;
      this.base = new URL(this.url);
    }
    this.token = fixedToken;
  }

  close(): void {
    this.agent.destroy();
  }

  async request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    try {
      return await this.send<T>(method, path, body);
    } catch (e) {
      // A rotated token: read the file again, once.
      if (e instanceof AgentHooksError && e.status === 401 && this.base && this.fixedToken === null) {
        const before = this.token;
        this.token = null;
        if (this.credentials().Authorization !== `Bearer ${before}`) return this.send<T>(method, path, body);
      }
      throw e;
    }
  }

  private credentials(): Record<string, string> {
    if (!this.base) return {};
    this.token ??= readToken();
    return { Authorization: `Bearer ${this.token}` };
  }

  private send<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    let headers: Record<string, string | number>;
    try {
      headers = this.credentials();
    } catch (e) {
      return Promise.reject(e);
    }
    if (data) {
      headers["Content-Type"] = "application/json";
      headers["Content-Length"] = data.length;
    }
    const where = this.base
      ? { host: this.base.hostname, port: this.base.port }
      : { socketPath: this.socketPath!, host: "localhost" };
    return new Promise<T>((resolve, reject) => {
      const req = http.request(
        {
          agent: this.agent,
          ...where,
          method,
          path,
          timeout: this.timeoutMs,
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            let answer: unknown = null;
            try {
              answer = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            } catch {
              answer = null;
            }
            const status = res.statusCode ?? 0;
            if (status >= 400) {
              const error = (answer as { error?: string } | null)?.error ?? `status ${status}`;
              reject(errorFor(status, error));
            } else {
              resolve(answer as T);
            }
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error("timed out")));
      req.on("error", (e) => reject(errorFor(0, `cannot reach ${this.url}: ${e.message}`)));
      req.end(data);
    });
  }

  /** Fires `event` (canonical, or a dialect's name such as `pre_prompt`). `options` (or, as
   * before, the conversation alone) adds the conversation for hooks that ask for it, the
   * host's channel, and the host's environment now for command hooks. */
  dispatch(
    event: string,
    payload: Record<string, unknown> = {},
    options: DispatchOptions | unknown[] = {},
  ): Promise<Outcome> {
    const { conversation, channelId, env } = Array.isArray(options) ? { conversation: options } : options;
    const body: Record<string, unknown> = { ...payload };
    if (env) body.env = Object.fromEntries(Object.entries(env).map(([k, v]) => [String(k), String(v)]));
    if (conversation !== undefined) {
      body.conversation = channelId === undefined ? conversation : { messages: conversation, channel_id: channelId };
    }
    return this.request("POST", `/v1/events/${event}`, body);
  }

  /** pre_tool_call → `run(input)` with the rewritten input, or the hooks' result when they
   * block (or ask, unless `onAsk` is "allow") → transform_tool_result when the tool ran
   * (unless `transform: false`) → post_tool_call with the right `status`. What `run` throws
   * is the tool's error: post_tool_call sees it, then it is thrown again (`reraise: false`
   * returns it in `ToolCall.error`). A request larger than the sidecar reads fails the hooks,
   * visibly (`warnings`), never the call. */
  async callTool(
    sessionId: string,
    toolName: string,
    toolInput: unknown,
    run: (input: unknown) => unknown | Promise<unknown>,
    options: CallToolOptions | "block" | "allow" = {},
  ): Promise<ToolCall> {
    const { onAsk = "block", fields = {}, transform = true, reraise = true, env } =
      typeof options === "string" ? { onAsk: options } : options;
    if (onAsk !== "block" && onAsk !== "allow") throw new TypeError(`onAsk must be "block" or "allow", not ${JSON.stringify(onAsk)}`);
    const clash = Object.keys(fields).filter((k) => OWN_FIELDS.has(k)).sort();
    if (clash.length) throw new TypeError(`fields may not set ${clash.join(", ")}: callTool writes them itself`);
    const fire = async (event: string, payload: Record<string, unknown>): Promise<Outcome> => {
      try {
        return await this.dispatch(event, payload, { env });
      } catch (e) {
        // A cap fails the hooks, visibly, never the tool call itself.
        if (e instanceof TooLarge) return unheard(event, payload, e.detail);
        throw e;
      }
    };
    const outcomes: Outcome[] = [];
    const warnings: string[] = [];
    const before = await fire("pre_tool_call", {
      session_id: sessionId,
      tool_name: toolName,
      tool_input: toolInput,
      ...fields,
    });
    const input = "tool_input" in before.payload ? before.payload.tool_input : toolInput;
    warnings.push(...before.warnings);
    let stop = before.stop?.reason ?? null;
    const refused =
      stop !== null || before.decision === "block" || (before.decision === "ask" && onAsk === "block");
    // Context about this call goes next to its result, as Claude Code places it.
    const notes = [...before.context];
    let status: ToolStatus;
    let result: unknown;
    let error: { thrown: unknown; message: string; errorClass: string } | null = null;
    let blockedReason: string | null = null;
    let duration: number | null = null;
    if (refused) {
      blockedReason = before.reason ?? stop ?? "";
      status = "blocked";
      result = before.result ?? `[blocked by a hook] ${blockedReason}`;
    } else {
      const started = performance.now();
      try {
        result = await run(input);
        duration = (performance.now() - started) / 1000;
        status = "success";
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        error = { thrown: e, message, errorClass: e instanceof Error ? e.name : "Error" };
        status = "error";
        result = message;
      }
    }
    outcomes.push(before);
    if (status !== "blocked" && transform) {
      const t = await fire("transform_tool_result", {
        session_id: sessionId,
        tool_name: toolName,
        tool_result: result,
        ...fields,
      });
      notes.push(...t.notes);
      warnings.push(...t.warnings);
      stop = stop ?? t.stop?.reason ?? null;
      outcomes.push(t);
    }
    // In the order open-strix writes the event, so skill hooks read the same bytes.
    const post: Record<string, unknown> = {
      session_id: sessionId,
      tool_name: toolName,
      tool_input: input,
      status,
    };
    if (error) {
      post.error = error.message;
      post.error_class = error.errorClass;
    } else if (blockedReason !== null) {
      post.block_reason = blockedReason;
    }
    post.tool_result = result;
    if (duration !== null) post.duration_seconds = Math.round(duration * 1e6) / 1e6;
    Object.assign(post, fields);
    const after = await fire("post_tool_call", post);
    // Only a call that succeeded can have its result replaced.
    if (status === "success" && "tool_result" in after.payload) result = after.payload.tool_result;
    notes.push(...after.notes);
    warnings.push(...after.warnings);
    stop = stop ?? after.stop?.reason ?? null;
    outcomes.push(after);
    if (error && reraise) throw error.thrown;
    const call: ToolCall = { toolName, input, status, result, blockedReason, notes, warnings, stop, outcomes };
    if (error) call.error = error.thrown;
    return call;
  }

  turn(sessionId: string): Turn {
    return new Turn(this, sessionId);
  }

  /** `GET /v1/hooks`: every hook with its source, events, health... */
  hooks(): Promise<HookList> {
    return this.request("GET", "/v1/hooks");
  }

  health(): Promise<Health> {
    return this.request("GET", "/v1/health");
  }

  /** `POST /v1/reload`: reads the workspace's configuration again now. */
  reload(): Promise<Reloaded> {
    return this.request("POST", "/v1/reload", {});
  }

  /** Approves `command` (and turns the master switch on unless `enableMaster` is false). */
  approve(command: string, enableMaster = true): Promise<Record<string, unknown>> {
    return this.request("POST", "/internal/runtime/hooks/approve", { command, enable_master: enableMaster });
  }

  /** One `/hooks` command line (`list`, `approve ...`), answered as text. */
  async command(line: string): Promise<string> {
    const answer = await this.request<{ text: string }>("POST", "/v1/hooks/command", { line });
    return answer.text;
  }
}

/** One user turn: counts the redos stop hooks force (`redo_count`, `stop_hook_active`). */
export class Turn {
  redoCount = 0;

  constructor(
    private readonly client: AgentHooks,
    readonly sessionId: string,
  ) {}

  /** on_stop for the final `response`; on "redo", run the model again with the reason. */
  stop(response: string, toolNames: string[] = []): Promise<StopVerdict> {
    return this.decide("on_stop", { session_id: this.sessionId, response, tool_names: toolNames });
  }

  completionClaim(goal: string, summary: string, response: string, toolNames: string[] = []): Promise<StopVerdict> {
    return this.decide("on_completion_claim", {
      session_id: this.sessionId,
      goal,
      summary,
      response,
      tool_names: toolNames,
    });
  }

  private async decide(event: string, payload: Record<string, unknown>): Promise<StopVerdict> {
    const outcome = await this.client.dispatch(event, {
      ...payload,
      redo_count: this.redoCount,
      stop_hook_active: this.redoCount > 0,
    });
    if (outcome.stop) return { kind: "stop", warnings: [outcome.stop.reason, ...outcome.warnings] };
    // The sidecar already overrules a block at the redo cap; this counts honoured ones.
    if (outcome.decision === "block") {
      this.redoCount += 1;
      return { kind: "redo", reason: outcome.reason ?? "" };
    }
    return { kind: "stop", warnings: outcome.warnings };
  }
}

/** How `Sidecar.start` runs the sidecar: `env` is added to this process's environment for it
 * and its hooks; `hostLifecycle` (default true) means this process fires `pre_startup` and the
 * other lifecycle events itself, so the sidecar does not (`--host-lifecycle`). */
export interface SidecarOptions {
  env?: Record<string, string>;
  hostLifecycle?: boolean;
}

/** The `agent-hooks` the npm package carries (`bin/` beside `dist/src/`), so that an installed
 * client runs the binary it was released with; undefined outside the package. */
function bundledBinary(): string | undefined {
  const bundled = path.join(__dirname, "..", "..", "bin", "agent-hooks");
  return fs.existsSync(bundled) ? bundled : undefined;
}

/** A running `agent-hooks serve` on the workspace's Unix socket (or, with `listen`, a loopback
 * port that needs the token), tied to this process's life (`--exit-with-parent`,
 * `--exit-on-stdin-eof` on a pipe only this process holds). `url` is for `AgentHooks`. */
export class Sidecar {
  private constructor(
    readonly process: ChildProcess,
    readonly url: string,
  ) {}

  static start(
    workspace: string,
    binary = process.env.AGENT_HOOKS_BIN ?? bundledBinary() ?? "agent-hooks",
    extraArgs: string[] = [],
    listen?: string,
    options: SidecarOptions = {},
  ): Promise<Sidecar> {
    const where = listen ? ["--listen", listen] : [];
    const lifecycle = options.hostLifecycle === false ? [] : ["--host-lifecycle"];
    const child = spawn(
      binary,
      [
        "--workspace",
        workspace,
        "serve",
        ...where,
        "--exit-with-parent",
        "--exit-on-stdin-eof",
        ...lifecycle,
        ...extraArgs,
      ],
      {
        stdio: ["pipe", "pipe", "inherit"],
        env: options.env ? { ...process.env, ...options.env } : process.env,
      },
    );
    return new Promise<Sidecar>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      lines.once("line", (line) => {
        const at = Math.max(line.lastIndexOf(" on http://"), line.lastIndexOf(" on unix:"));
        if (at < 0) reject(new Error(`agent-hooks serve did not start: ${line}`));
        else resolve(new Sidecar(child, line.slice(at + 4)));
      });
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`agent-hooks serve exited with ${code}`)));
    });
  }

  /** SIGTERM: in-flight dispatches finish (and, with `hostLifecycle: false`, the shutdown
   * hooks run). The exit code. */
  stop(): Promise<number | null> {
    return new Promise((resolve) => {
      if (this.process.exitCode !== null) return resolve(this.process.exitCode);
      this.process.once("exit", (code) => resolve(code));
      this.process.kill("SIGTERM");
    });
  }
}
