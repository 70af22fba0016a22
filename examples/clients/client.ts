// A client of the agent-hooks sidecar (`agent-hooks serve --listen`), with the built-in fetch of
// Node 18+ (Deno and Bun run it too).
//
// Usage: tsc client.ts && node client.js [PORT]
//        (default 8787; `agent-hooks serve --listen` must be running)

import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The bearer token every request needs, from the sidecar's token file. */
export function sidecarToken(): string {
  const state =
    process.env.AGENT_HOOKS_STATE_DIR ??
    join(process.env.XDG_STATE_HOME ?? join(homedir(), ".local/state"), "agent-hooks");
  return readFileSync(join(state, "sidecar.token"), "utf8").trim();
}

export type Decision = "continue" | "block" | "ask";

export interface HookReport {
  hook: string;
  source: string;
  status: "ok" | "noop" | "blocked" | "skipped" | "timeout" | "error" | "invalid_output";
  detail: string | null;
  ms: number;
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
  /** The reason as a UI shows it: tag dropped, capitalised, the quoted payload apart. */
  display: { summary: string; evidence: string | null } | null;
  hooks: HookReport[];
}

export interface Approval {
  ok: true;
  events: string[];
  mounted: number;
  master_enabled: boolean;
}

export interface Health {
  ok: true;
  workspace: string;
  hooks: number;
  master_enabled: boolean;
  config_errors: number;
  uptime_s: number;
}

/** The sidecar answered {"ok": false, "error": ...} or could not be reached. */
export class AgentHooksError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`agent-hooks sidecar: ${message} (HTTP ${status})`);
  }
}

export class AgentHooks {
  // The timeout must outlive the slowest hook: a hook may run up to 120 s.
  constructor(
    readonly baseUrl = "http://127.0.0.1:8787",
    readonly timeoutMs = 150_000,
    private readonly token = sidecarToken(),
  ) {}

  private async call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.baseUrl + path, {
        method,
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${this.token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw new AgentHooksError(0, `cannot reach ${this.baseUrl}: ${String(e)}`);
    }
    const answer: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      const error = (answer as { error?: string } | null)?.error ?? response.statusText;
      throw new AgentHooksError(response.status, error);
    }
    return answer as T;
  }

  /** Fires `event` and returns the outcome: decision, reason, payload, context, ... */
  dispatch(event: string, payload: Record<string, unknown>): Promise<Outcome> {
    return this.call("POST", `/v1/events/${event}`, payload);
  }

  /** Approves every event `command` is declared for (it must be declared already). */
  approve(command: string, enableMaster = true): Promise<Approval> {
    return this.call("POST", "/internal/runtime/hooks/approve", {
      command,
      enable_master: enableMaster,
    });
  }

  /** Runs a `/hooks ...` command line and returns the text a user would see. */
  async command(line: string): Promise<string> {
    const answer = await this.call<{ text: string }>("POST", "/v1/hooks/command", { line });
    return answer.text;
  }

  health(): Promise<Health> {
    return this.call("GET", "/v1/health");
  }
}

async function main(): Promise<void> {
  const port = process.argv[2] ?? "8787";
  const hooks = new AgentHooks(`http://127.0.0.1:${port}`);
  console.log("hooks:", (await hooks.health()).hooks);
  const outcome = await hooks.dispatch("pre_tool_call", {
    tool_name: "bash",
    tool_input: { command: "rm -rf /" },
  });
  console.log("decision:", outcome.decision);
  console.log("reason:", outcome.reason);
  if (outcome.decision === "continue") {
    // Run the tool with the (possibly rewritten) input the hooks left.
    console.log("tool_input:", JSON.stringify(outcome.payload.tool_input));
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exitCode = 1;
  });
}
