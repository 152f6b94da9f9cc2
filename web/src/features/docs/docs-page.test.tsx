import { afterEach, vi } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { GENERATED_EXAMPLE } from "@/lib/generated-example";
import { EXAMPLE_UNAVAILABLE_REPLY, LIVE_EXAMPLE } from "@/test/example-fixture";
import { mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { SDK_CATALOG } from "@/test/sdk-fixture";
import DocsPage from "./docs-page";
import { VALUATION_OPERATIONS } from "./live-example";

// swagger-ui itself is exercised in a real browser; here we check how the page configures it.
const swaggerProps = vi.hoisted(() => ({ current: null as Record<string, unknown> | null }));

vi.mock("swagger-ui-react", () => ({
  default: (props: Record<string, unknown>) => {
    swaggerProps.current = props;
    return <div data-testid="swagger-ui" />;
  },
}));

afterEach(() => {
  vi.unstubAllGlobals();
  swaggerProps.current = null;
});

const DEMO_REF = { $ref: "#/components/examples/DemoValuation" };

/** The parts of the contract the page patches, as api/openapi.yaml has them (the generated example). */
function contract() {
  const ok = { content: { "application/json": { schema: {}, examples: { demoHome: DEMO_REF } } } };
  return {
    openapi: "3.1.0",
    paths: {
      "/api/v1/property/valuation": { get: { responses: { "200": structuredClone(ok) } } },
      "/api/property/lookup": { post: { responses: { "200": structuredClone(ok) } } },
    },
    components: {
      examples: { DemoValuation: { summary: "generated", description: "generated", value: GENERATED_EXAMPLE.response } },
    },
  };
}

function renderDocs(example: FakeRoute = { body: LIVE_EXAMPLE }) {
  mockFetch({ "GET /api/openapi.json": { body: contract() }, "GET /api/example": example });
  return renderWithProviders(<DocsPage />);
}

type Spec = ReturnType<typeof contract>;
type Example = { summary: string; description: string; value: unknown };

/** The example each valuation operation's 200 shows in the spec handed to swagger-ui. */
function shownExamples(spec: Spec): Example[] {
  const paths = spec.paths as unknown as Record<string, Record<string, { responses: Record<string, { content: Record<string, { examples: Record<string, Example> }> }> }>>;
  return VALUATION_OPERATIONS.map(([path, method]) => paths[path]![method]!.responses["200"]!.content["application/json"]!.examples.demoHome!);
}

describe("DocsPage", () => {
  it("feeds the bundled viewer the server's contract with filtering, try-it-out and remembered auth", async () => {
    renderDocs();
    expect(await screen.findByTestId("swagger-ui")).toBeInTheDocument();
    expect(swaggerProps.current).toMatchObject({
      filter: true,
      tryItOutEnabled: true,
      persistAuthorization: true,
      deepLinking: true,
    });
    expect((swaggerProps.current?.spec as Spec).openapi).toBe("3.1.0");
    expect(screen.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/");
    expect(screen.getByRole("link", { name: "Valuator" })).toHaveAttribute("href", "/");
  });

  it("shows this server's own answer as the valuation example, in place of the generated one", async () => {
    renderDocs();
    await screen.findByTestId("swagger-ui");
    const spec = swaggerProps.current?.spec as Spec;
    for (const ex of shownExamples(spec)) {
      expect(ex.value).toEqual(LIVE_EXAMPLE.response);
      expect(ex.description).toContain("This server's own answer today");
    }
    expect(spec.components.examples.DemoValuation.value).toEqual(LIVE_EXAMPLE.response);
  });

  it("waits for the example before showing the reference: a skeleton, never the generated numbers", async () => {
    renderDocs(() => new Promise(() => {}));
    expect(screen.getByTestId("docs-loading")).toBeInTheDocument();
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId("swagger-ui")).not.toBeInTheDocument();
  });

  it("labels the generated example with its day when this server has no record of the home", async () => {
    renderDocs(EXAMPLE_UNAVAILABLE_REPLY);
    await screen.findByTestId("swagger-ui");
    const spec = swaggerProps.current?.spec as Spec;
    for (const ex of shownExamples(spec)) {
      expect(ex.value).toEqual(GENERATED_EXAMPLE.response);
      expect(ex.summary).toBe(`The answer on the demo market of ${GENERATED_EXAMPLE.market.day}`);
      expect(ex.description).toContain("This server has no record of this home");
    }
  });

  it("shows the install lines of the clients this server hosts above the reference", async () => {
    mockFetch({
      "GET /api/openapi.json": { body: contract() },
      "GET /api/example": { body: LIVE_EXAMPLE },
      "GET /api/sdks": { body: SDK_CATALOG },
    });
    renderWithProviders(<DocsPage />);
    expect(await screen.findByText(SDK_CATALOG.go.install)).toBeInTheDocument();
    expect(screen.getByText(SDK_CATALOG.typescript.install)).toBeInTheDocument();
    expect(screen.getByText(SDK_CATALOG.python!.install)).toBeInTheDocument();
  });

  it("lets swagger-ui fetch the contract itself when the page could not", async () => {
    mockFetch({ "GET /api/openapi.json": { status: 500, body: { error: "Internal error", code: "internal", requestId: "r" } } });
    renderWithProviders(<DocsPage />);
    await waitFor(() => expect(swaggerProps.current?.url).toBe("/api/openapi.json"));
  });
});
