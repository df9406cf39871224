// The heavy halves of the client, loaded before a client command's action rather than at start-up: the type
// registry (every module's generated schemas, each module's ModuleCliRef.types; src/client/cli/registry.ts) and
// the keyring (BIP39/BIP32 and the
// curves). Importing them costs more than a whole `query bank balances`, whose answer holds no Any and needs no
// key, so commands marked light (ClientSession.markLight) run without them. ClientSession.run loads them
// before every other action, so ClientContext can hand them out synchronously.
import type { DescMessage, Registry } from "@bufbuild/protobuf";
import type { ModuleCliRef } from "../../app/module-cli.ts";
import type { openKeyring } from "../keyring/keyring.ts";

/** The lazily loaded client modules. */
export interface ClientModules {
  /** The registry of every type the CLI may meet inside an Any. */
  registry(): Registry;
  /** Opens a keyring (src/client/keyring/keyring.ts). */
  openKeyring: typeof openKeyring;
}

let loaded: ClientModules | undefined;
let loadedFor: string | undefined;

/**
 * Loads the type registry of `modules` (the chain's module CLIs) and the keyring; again only when asked for
 * another module set (a test process may serve several chains).
 */
export async function loadClientModules(modules: readonly ModuleCliRef[] = []): Promise<ClientModules> {
  const key = modules.map((module) => module.name).join(",");
  if (loaded === undefined || loadedFor !== key) {
    const [{ cliTypeRegistry }, keyring, types] = await Promise.all([
      import("./registry.ts"),
      import("../keyring/keyring.ts"),
      Promise.all(modules.map((module) => module.types())),
    ]);
    let registry: Registry | undefined;
    loaded = {
      registry: () => {
        registry ??= cliTypeRegistry(types.flat());
        return registry;
      },
      openKeyring: keyring.openKeyring,
    };
    loadedFor = key;
  }
  return loaded;
}

/** The client modules {@link loadClientModules} loaded; a command marked light that needs them is a bug. */
export function loadedClientModules(): ClientModules;
/** The loaded client modules, or undefined when not loaded. */
export function loadedClientModules(options: { optional: true }): ClientModules | undefined;
export function loadedClientModules(options?: { optional: true }): ClientModules | undefined {
  if (loaded === undefined && options?.optional !== true) {
    throw new Error(
      "the client's type registry and keyring are not loaded: a command marked light (ClientSession.markLight) needs them",
    );
  }
  return loaded;
}

/** Whether a message of `schema` can hold a google.protobuf.Any anywhere (fields, lists, maps, nested). */
export function hasAny(schema: DescMessage, seen: Set<string> = new Set()): boolean {
  if (schema.typeName === "google.protobuf.Any") return true;
  if (seen.has(schema.typeName)) return false;
  seen.add(schema.typeName);
  for (const field of schema.fields) {
    const nested =
      field.fieldKind === "message"
        ? field.message
        : field.fieldKind === "list" && field.listKind === "message"
          ? field.message
          : field.fieldKind === "map" && field.mapKind === "message"
            ? field.message
            : undefined;
    if (nested !== undefined && hasAny(nested, seen)) return true;
  }
  return false;
}
