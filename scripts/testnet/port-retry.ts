// Ports are picked (ports.ts) before chaind and CometBFT bind them, so another process can take one in between — a
// CI run beside other tests saw CometBFT exit with "bind: address already in use". This file tells such a collision
// from a node process's own output and retries a start with newly picked ports, a bounded number of times. Any
// other failure is passed on at once.
import { ownOutput } from "./processes.ts";
import { type NodePorts, type NodeProcess, TestnetError, type TestnetNode } from "./types.ts";

/** How many times a start is tried in all when its ports keep being taken. */
export const PORT_ATTEMPTS = 3;

/** Both wordings: Go's ("bind: address already in use") and Node's ("EADDRINUSE"), and chaind's ABCI server's. */
const IN_USE = /address already in use|address is already in use|EADDRINUSE/i;

/** A port of one node that was in use when its process tried to bind it. */
export interface PortCollision {
  node: TestnetNode;
  /** Which of the node's ports, when the line names one of them. */
  kind?: keyof NodePorts;
  port?: number;
  /** The process's line that says so. */
  line: string;
}

/** A start that failed because a node's port was taken, in every attempt allowed. */
export class PortInUseError extends TestnetError {
  readonly collision: PortCollision;
  constructor(message: string, collision: PortCollision, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PortInUseError";
    this.collision = collision;
  }
}

/** The line in which `proc`, having exited, says that an address it was to listen on was in use. */
export function addressInUseLine(proc: NodeProcess | undefined): string | undefined {
  if (proc === undefined || !proc.hasExited()) return undefined;
  let text: string;
  try {
    text = ownOutput(proc);
  } catch {
    return undefined;
  }
  return text.split("\n").find((line) => IN_USE.test(line));
}

/** The first port collision that ended a process of one of `nodes`, or undefined when none ended so. */
export function findPortCollision(nodes: TestnetNode[]): PortCollision | undefined {
  for (const node of nodes) {
    for (const proc of [node.chaind, node.cometbft]) {
      const line = addressInUseLine(proc);
      if (line === undefined) continue;
      // The node's own ports, matched as ":<port>" not followed by another digit.
      const kinds = Object.keys(node.ports) as (keyof NodePorts)[];
      const kind = kinds.find((k) => new RegExp(`:${node.ports[k]}(?!\\d)`).test(line));
      return { node, kind, port: kind === undefined ? undefined : node.ports[kind], line: line.trim() };
    }
  }
  return undefined;
}

/** "node3's rpc port 27810", or as much of it as the line told. */
export function describeCollision(collision: PortCollision): string {
  const which = collision.kind === undefined ? "a port" : `${collision.kind} port ${collision.port}`;
  return `${collision.node.moniker}'s ${which} on 127.0.0.1`;
}

/** How retryOnPortCollision starts, stops and re-ports the nodes. */
export interface PortRetrySteps<T> {
  /** The nodes whose processes `start` runs (read after each failure: `repick` may replace them). */
  nodes: () => TestnetNode[];
  /** Starts the processes; throws when they do not come up. */
  start: () => Promise<T>;
  /** Stops whatever `start` started (called after every failed attempt). */
  stop: () => Promise<void>;
  /** Picks new ports and writes them into the homes (and wherever else they are recorded). */
  repick: (collision: PortCollision) => Promise<void>;
  /** Attempts in all (default PORT_ATTEMPTS); 1 fails on the first collision with a PortInUseError. */
  attempts?: number;
  log?: (line: string) => void;
}

/**
 * Runs `start`; when it fails because a node process exited with one of its ports in use, stops everything, lets
 * `repick` choose new ports and tries again, up to `attempts` times. Other failures are thrown after `stop`.
 */
export async function retryOnPortCollision<T>(steps: PortRetrySteps<T>): Promise<T> {
  const attempts = steps.attempts ?? PORT_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await steps.start();
    } catch (error) {
      await steps.stop();
      const collision = findPortCollision(steps.nodes());
      if (collision === undefined) throw error;
      if (attempt >= attempts) {
        const tries = attempts === 1 ? "" : ` in each of ${attempts} attempts, with new ports each time`;
        throw new PortInUseError(`${describeCollision(collision)} was in use${tries}: ${collision.line}`, collision, {
          cause: error,
        });
      }
      steps.log?.(
        `${describeCollision(collision)} was taken by another process: picking new ports (attempt ${attempt + 1} of ${attempts})`,
      );
      // The stopped processes are forgotten, so that the next failure is judged on the next attempt's alone.
      for (const node of steps.nodes()) {
        node.chaind = undefined;
        node.cometbft = undefined;
      }
      await steps.repick(collision);
    }
  }
}
