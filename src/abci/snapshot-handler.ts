// What the ABCI server needs to serve state sync: the four snapshot methods of CometBFT's
// snapshot connection. src/snapshots implements it; without one, the server answers as a node
// without snapshots (empty lists, ABORT).
import type {
  RequestApplySnapshotChunk,
  RequestListSnapshots,
  RequestLoadSnapshotChunk,
  RequestOfferSnapshot,
  ResponseApplySnapshotChunk,
  ResponseListSnapshots,
  ResponseLoadSnapshotChunk,
  ResponseOfferSnapshot,
} from "../gen/tendermint/abci/types_pb.js";

/** The ABCI 2.0 snapshot methods. */
export interface AbciSnapshotHandler {
  listSnapshots(request: RequestListSnapshots): Promise<ResponseListSnapshots>;
  loadSnapshotChunk(request: RequestLoadSnapshotChunk): Promise<ResponseLoadSnapshotChunk>;
  offerSnapshot(request: RequestOfferSnapshot): Promise<ResponseOfferSnapshot>;
  applySnapshotChunk(request: RequestApplySnapshotChunk): Promise<ResponseApplySnapshotChunk>;
}
