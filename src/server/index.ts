// Public entry point of the servers (`chaind/server`): gRPC with reflection and the REST gateway in front of it.
export * from "./app-backend.ts";
export * from "./servers.ts";
