// gRPC server reflection (`grpc.reflection.v1` and `v1alpha`, which are the same protocol under two
// names) answered from the protobuf-es descriptors the services are built from: `grpcurl list`,
// `describe` and calls without local .proto files all work. Each file is sent once per stream with
// the dependencies the client has not seen yet, as grpc-go does.
import { type DescFile, type DescService, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { GrpcCode } from "../app/errors.ts";
import type {
  ServerReflectionRequest,
  ServerReflectionResponseSchema,
} from "../gen/grpc/reflection/v1/reflection_pb.js";

/**
 * What reflection knows: the served services and every file they need, plus the files of the app's
 * registered types (Msgs, accounts, keys), so that clients such as grpcurl can describe them and decode
 * the `Any` values in responses (a proposal's messages, a tx's body), as on a Cosmos SDK node.
 */
export class ReflectionIndex {
  private readonly serviceNames: string[];
  private readonly filesByName = new Map<string, DescFile>();
  private readonly fileBySymbol = new Map<string, DescFile>();
  private readonly extensionsByType = new Map<string, Map<number, DescFile>>();
  private readonly encoded = new Map<string, Uint8Array>();

  /**
   * Indexes `services` (include the reflection services themselves) and their files' dependencies, and
   * the files declaring `types` (e.g. the app's type registry). Only `services` are listed.
   */
  constructor(services: readonly DescService[], types: Iterable<{ readonly file: DescFile }> = []) {
    this.serviceNames = [...new Set(services.map((service) => service.typeName))].sort();
    for (const service of services) this.addFile(service.file);
    for (const type of types) this.addFile(type.file);
  }

  private addFile(file: DescFile): void {
    // DescFile.name drops ".proto"; clients ask by the name the descriptor itself carries.
    if (this.filesByName.has(file.proto.name)) return;
    this.filesByName.set(file.proto.name, file);
    for (const type of nestedTypes(file)) {
      this.fileBySymbol.set(type.typeName, file);
      if (type.kind === "service") {
        for (const method of type.methods) this.fileBySymbol.set(`${type.typeName}.${method.name}`, file);
      }
      if (type.kind === "extension") {
        let numbers = this.extensionsByType.get(type.extendee.typeName);
        if (numbers === undefined) {
          numbers = new Map();
          this.extensionsByType.set(type.extendee.typeName, numbers);
        }
        numbers.set(type.number, file);
      }
    }
    for (const dependency of file.dependencies) this.addFile(dependency);
  }

  /** Served service names, sorted. */
  services(): string[] {
    return this.serviceNames;
  }

  /** Answers one request; `sent` holds the files this stream has already sent. */
  answer(request: ServerReflectionRequest, sent: Set<string>): MessageInitShape<typeof ServerReflectionResponseSchema> {
    const base = { validHost: request.host, originalRequest: request };
    const question = request.messageRequest;
    const files = (file: DescFile | undefined, what: string) =>
      file === undefined
        ? { ...base, messageResponse: errorResponse(GrpcCode.NotFound, what) }
        : {
            ...base,
            messageResponse: {
              case: "fileDescriptorResponse" as const,
              value: { fileDescriptorProto: this.withDependencies(file, sent) },
            },
          };
    switch (question.case) {
      case "listServices":
        return {
          ...base,
          messageResponse: {
            case: "listServicesResponse",
            value: { service: this.serviceNames.map((name) => ({ name })) },
          },
        };
      case "fileByFilename":
        return files(this.filesByName.get(question.value), `unknown file: ${question.value}`);
      case "fileContainingSymbol":
        return files(this.fileBySymbol.get(question.value.replace(/^\./, "")), `unknown symbol: ${question.value}`);
      case "fileContainingExtension": {
        const { containingType, extensionNumber } = question.value;
        return files(
          this.extensionsByType.get(containingType)?.get(extensionNumber),
          `unknown extension: ${containingType} field ${extensionNumber}`,
        );
      }
      case "allExtensionNumbersOfType": {
        const type = question.value;
        if (!this.fileBySymbol.has(type) && !this.extensionsByType.has(type)) {
          return { ...base, messageResponse: errorResponse(GrpcCode.NotFound, `unknown type: ${type}`) };
        }
        const numbers = [...(this.extensionsByType.get(type)?.keys() ?? [])].sort((a, b) => a - b);
        return {
          ...base,
          messageResponse: {
            case: "allExtensionNumbersResponse",
            value: { baseTypeName: type, extensionNumber: numbers },
          },
        };
      }
      default:
        return {
          ...base,
          messageResponse: errorResponse(GrpcCode.InvalidArgument, "the request asks nothing reflection can answer"),
        };
    }
  }

  // The file first, then the dependencies not sent yet (depth first), each encoded once.
  private withDependencies(file: DescFile, sent: Set<string>): Uint8Array[] {
    const out: Uint8Array[] = [];
    const visit = (current: DescFile, required: boolean) => {
      if (sent.has(current.proto.name) && !required) return;
      sent.add(current.proto.name);
      out.push(this.encode(current));
      for (const dependency of current.dependencies) visit(dependency, false);
    };
    // The requested file is always sent, even if this stream has seen it.
    visit(file, true);
    return out;
  }

  private encode(file: DescFile): Uint8Array {
    let bytes = this.encoded.get(file.proto.name);
    if (bytes === undefined) {
      bytes = toBinary(FileDescriptorProtoSchema, file.proto);
      this.encoded.set(file.proto.name, bytes);
    }
    return bytes;
  }
}

function errorResponse(code: number, message: string) {
  return { case: "errorResponse" as const, value: { errorCode: code, errorMessage: message } };
}
