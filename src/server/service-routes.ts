// Builds served routes for one of the node's own services from a map of method implementations;
// a method without an implementation (its node hook is missing) answers Unimplemented.
import {
  create,
  type DescMessage,
  type DescService,
  type Message,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import { GrpcCode } from "../app/errors.ts";
import { methodPath } from "../app/router.ts";
import type { CallAt, ServedRoute } from "./served-routes.ts";
import { RequestError } from "./status.ts";

/** One method's implementation: the typed request and where it runs, the response as an init object. */
export type MethodImpl<I extends DescMessage, O extends DescMessage> = (
  request: MessageShape<I>,
  at: CallAt,
) => Promise<MessageInitShape<O>>;

/** Implementations by method local name (`getTx`); undefined ones answer Unimplemented. */
export type ServiceImpl<S extends GenService<GenServiceMethods>> = {
  [K in keyof S["method"]]?: MethodImpl<S["method"][K]["input"], S["method"][K]["output"]>;
};

/**
 * The served routes of `service`. `stateless` names methods that do not read state at a height
 * (their height header is ignored).
 */
export function serviceRoutes<S extends GenService<GenServiceMethods>>(
  service: S,
  impl: ServiceImpl<S>,
  stateless: readonly (keyof S["method"])[] = [],
): ServedRoute[] {
  const desc = service as unknown as DescService;
  return desc.methods.map((method) => {
    const fn = (impl as Record<string, ((request: Message, at: CallAt) => Promise<unknown>) | undefined>)[
      method.localName
    ];
    const path = methodPath(method);
    return {
      path,
      service: desc,
      method,
      input: method.input,
      output: method.output,
      heightBound: !stateless.includes(method.localName as keyof S["method"]),
      handler: async (request: Message, at: CallAt): Promise<Message> => {
        if (fn === undefined) throw new RequestError(GrpcCode.Unimplemented, `${path} is not supported by this node`);
        const response = await fn(request, at);
        return create(method.output, response as MessageInitShape<typeof method.output>);
      },
    };
  });
}
