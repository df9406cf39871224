// A loopback proxy between one node's CometBFT (its `proxy_app`) and its chaind that lets every byte through until
// chaind answers a FinalizeBlock, and holds that answer back. At that moment CometBFT has stored the block (it saves
// a block before it applies it), chaind has executed it in memory, and nobody has committed it: the window a crash
// between FinalizeBlock and Commit leaves, which the handshake and replay must recover from. Freezing processes at
// a log line cannot reach it reliably (CometBFT may be frozen before its ProcessProposal, which then waits on the
// frozen app); the proxy reaches it on the first block CometBFT applies, every time.
import { connect, createServer, type Server, type Socket } from "node:net";
import { fromBinary } from "@bufbuild/protobuf";
import { FrameDecoder } from "../../../src/abci/framing.ts";
import { RequestSchema } from "../../../src/gen/tendermint/abci/types_pb.js";

/** A running proxy: CometBFT connects to `port`. */
export interface AbciCut {
  port: number;
  /** The height of the block whose FinalizeBlock answer is held back, once one is. */
  heldHeight(): bigint | undefined;
  /** Closes the listener and every connection on both sides. */
  close(): Promise<void>;
}

/** Starts the proxy in front of the chaind answering ABCI on 127.0.0.1:`appPort`. */
export async function startAbciCut(appPort: number): Promise<AbciCut> {
  const sockets = new Set<Socket>();
  let held = false;
  let heldHeight: bigint | undefined;

  const server: Server = createServer((fromComet) => {
    const toApp = connect({ host: "127.0.0.1", port: appPort });
    sockets.add(fromComet).add(toApp);
    const requests = new FrameDecoder();
    // The height of a FinalizeBlock this connection has passed on and not yet seen answered.
    let finalizing: bigint | undefined;
    fromComet.on("data", (chunk: Buffer) => {
      for (const frame of requests.push(chunk).frames) {
        const height = finalizeBlockHeight(frame);
        if (height !== undefined) finalizing = height;
      }
      if (!held) toApp.write(chunk);
    });
    toApp.on("data", (chunk: Buffer) => {
      if (!held && finalizing !== undefined) {
        held = true;
        heldHeight = finalizing;
      }
      if (!held) fromComet.write(chunk);
    });
    // Until the cut a closed side closes the other, as a direct connection would; after it, both wait for close().
    const pass = (from: Socket, to: Socket) => {
      from.on("close", () => {
        if (!held) to.destroy();
      });
      from.on("error", () => {});
    };
    pass(fromComet, toApp);
    pass(toApp, fromComet);
  });
  await new Promise<void>((listening, failed) => {
    server.once("error", failed);
    server.listen(0, "127.0.0.1", listening);
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the ABCI proxy has no TCP port");
  return {
    port: address.port,
    heldHeight: () => heldHeight,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}

/** The height of a FinalizeBlock request; undefined for any other request, and for a frame that does not decode
 * (passed on uninspected: the proxy must never be what breaks the connection). */
function finalizeBlockHeight(frame: Uint8Array): bigint | undefined {
  try {
    const request = fromBinary(RequestSchema, frame);
    return request.value.case === "finalizeBlock" ? request.value.value.height : undefined;
  } catch {
    return undefined;
  }
}
