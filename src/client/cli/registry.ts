// The CLI's type registry: every type that can appear inside an Any in what the client reads or prints
// (Msgs of every module, accounts, public keys, proposal contents, txs). The CLI has no App to ask, so
// it lists the generated files itself; the app's registry is built from the same files.
import type { Registry } from "@bufbuild/protobuf";
import { buildTypeRegistry } from "../../app/type-registry.ts";
import { file_chain_auth_v1beta1_query } from "../../gen/chain/auth/v1beta1/query_pb.js";
import { file_chain_auth_v1beta1_tx } from "../../gen/chain/auth/v1beta1/tx_pb.js";
import { file_chain_bank_v1beta1_bank } from "../../gen/chain/bank/v1beta1/bank_pb.js";
import { file_chain_bank_v1beta1_query } from "../../gen/chain/bank/v1beta1/query_pb.js";
import { file_chain_bank_v1beta1_tx } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import { file_chain_base_abci_v1beta1_abci } from "../../gen/chain/base/abci/v1beta1/abci_pb.js";
import { file_chain_gov_v1_gov } from "../../gen/chain/gov/v1/gov_pb.js";
import { file_chain_gov_v1_query } from "../../gen/chain/gov/v1/query_pb.js";
import { file_chain_gov_v1_tx } from "../../gen/chain/gov/v1/tx_pb.js";
import { file_chain_staking_v1beta1_query } from "../../gen/chain/staking/v1beta1/query_pb.js";
import { file_chain_staking_v1beta1_tx } from "../../gen/chain/staking/v1beta1/tx_pb.js";
import { file_chain_tx_v1beta1_service } from "../../gen/chain/tx/v1beta1/service_pb.js";
import { file_chain_upgrade_v1beta1_query } from "../../gen/chain/upgrade/v1beta1/query_pb.js";
import { file_chain_upgrade_v1beta1_tx } from "../../gen/chain/upgrade/v1beta1/tx_pb.js";

let registry: Registry | undefined;

/** The registry of every type the CLI may meet inside an Any (built once, on first use). */
export function cliTypeRegistry(): Registry {
  registry ??= buildTypeRegistry([
    file_chain_auth_v1beta1_query,
    file_chain_auth_v1beta1_tx,
    file_chain_bank_v1beta1_bank,
    file_chain_bank_v1beta1_query,
    file_chain_bank_v1beta1_tx,
    file_chain_base_abci_v1beta1_abci,
    file_chain_gov_v1_gov,
    file_chain_gov_v1_query,
    file_chain_gov_v1_tx,
    file_chain_staking_v1beta1_query,
    file_chain_staking_v1beta1_tx,
    file_chain_tx_v1beta1_service,
    file_chain_upgrade_v1beta1_query,
    file_chain_upgrade_v1beta1_tx,
  ]);
  return registry;
}
