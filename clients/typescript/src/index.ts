// A client of the agent-hooks sidecar (`agent-hooks serve`) for Node 20, built-ins only: a
// kept-alive `node:http` agent over the sidecar's Unix socket (or loopback TCP with the bearer
// token), a typed outcome, and the agent-loop helpers of the Rust library's `host` module
// (`callTool`, `Turn`) with the same behaviour as the Python client.

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

/** One problem a dispatch ran into: a hook's stderr, an unusable answer, a refused rewrite... */
export interface Diagnostic {
  type: string;
  hook: string | null;
  source: string | null;
  detail: string;
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

  /** Fires `event` (canonical, or a dialect's name such as `pre_prompt`); `conversation`
   * goes only to hooks that ask for it. */
  dispatch(event: string, payload: Record<string, unknown> = {}, conversation?: unknown[]): Promise<Outcome> {
    const body = conversation === undefined ? payload : { ...payload, conversation };
    return this.request("POST", `/v1/events/${event}`, body);
  }

  /** pre_tool_call → `run(input)` with the rewritten input, or the hooks' result when they
   * block (or ask, unless `onAsk` is "allow") → transform_tool_result when the tool ran →
   * post_tool_call with the right `status`. A `run` that throws is the tool's error. */
  async callTool(
    sessionId: string,
    toolName: string,
    toolInput: unknown,
    run: (input: unknown) => unknown | Promise<unknown>,
    onAsk: "block" | "allow" = "block",
  ): Promise<ToolCall> {
    const outcomes: Outcome[] = [];
    const warnings: string[] = [];
    const before = await this.dispatch("pre_tool_call", {
      session_id: sessionId,
      tool_name: toolName,
      tool_input: toolInput,
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
    let error: { message: string; errorClass: string } | null = null;
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
        error = { message, errorClass: e instanceof Error ? e.name : "Error" };
        status = "error";
        result = message;
      }
    }
    outcomes.push(before);
    if (status !== "blocked") {
      const t = await this.dispatch("transform_tool_result", {
        session_id: sessionId,
        tool_name: toolName,
        tool_result: result,
      });
      notes.push(...t.notes);
      warnings.push(...t.warnings);
      stop = stop ?? t.stop?.reason ?? null;
      outcomes.push(t);
    }
    const post: Record<string, unknown> = {
      session_id: sessionId,
      tool_name: toolName,
      tool_input: input,
      tool_result: result,
      status,
    };
    if (error) {
      post.error = error.message;
      post.error_class = error.errorClass;
    }
    if (blockedReason !== null) post.block_reason = blockedReason;
    if (duration !== null) post.duration_seconds = Math.round(duration * 1e6) / 1e6;
    const after = await this.dispatch("post_tool_call", post);
    // Only a call that succeeded can have its result replaced.
    if (status === "success" && "tool_result" in after.payload) result = after.payload.tool_result;
    notes.push(...after.notes);
    warnings.push(...after.warnings);
    stop = stop ?? after.stop?.reason ?? null;
    outcomes.push(after);
    return { toolName, input, status, result, blockedReason, notes, warnings, stop, outcomes };
  }

  turn(sessionId: string): Turn {
    return new Turn(this, sessionId);
  }

  hooks(): Promise<{ ok: true; master_enabled: boolean; hooks: Record<string, unknown>[]; diagnostics: Diagnostic[] }> {
    return this.request("GET", "/v1/hooks");
  }

  health(): Promise<Record<string, unknown>> {
    return this.request("GET", "/v1/health");
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
