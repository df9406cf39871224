// The CLI's type registry: every type that can appear inside an Any in what the client reads or prints. The
// chain-wide ones (tx responses, the tx service) are listed here; each module brings its own through its CLI
// (ModuleCliRef.types, src/app/module-cli.ts), so the registry follows the chain's modules, a chain's own included.
// The CLI has no App to ask: the modules' refs come from the chain's definition (src/cli/commands/client-commands.ts).
import type { Registry } from "@bufbuild/protobuf";
import type { ModuleCliTypes } from "../../app/module-cli.ts";
import { buildTypeRegistry } from "../../app/type-registry.ts";
import { file_chain_base_abci_v1beta1_abci } from "../../gen/chain/base/abci/v1beta1/abci_pb.js";
import { file_chain_tx_v1beta1_service } from "../../gen/chain/tx/v1beta1/service_pb.js";

/** The registry of the chain-wide types plus the modules' `moduleTypes`. */
export function cliTypeRegistry(moduleTypes: ModuleCliTypes): Registry {
  return buildTypeRegistry([file_chain_base_abci_v1beta1_abci, file_chain_tx_v1beta1_service, ...moduleTypes]);
}
