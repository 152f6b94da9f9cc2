import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import DocsPage from "./docs-page";

// swagger-ui itself is exercised in a real browser; here we check how the page configures it.
const swaggerProps = vi.hoisted(() => ({ current: null as Record<string, unknown> | null }));

vi.mock("swagger-ui-react", () => ({
  default: (props: Record<string, unknown>) => {
    swaggerProps.current = props;
    return <div data-testid="swagger-ui" />;
  },
}));

describe("DocsPage", () => {
  it("feeds the bundled viewer from the server's OpenAPI document with filtering, try-it-out and remembered auth", () => {
    render(
      <MemoryRouter>
        <DocsPage />
      </MemoryRouter>,
    );
    expect(screen.getByTestId("swagger-ui")).toBeInTheDocument();
    expect(swaggerProps.current).toMatchObject({
      url: "/api/openapi.json",
      filter: true,
      tryItOutEnabled: true,
      persistAuthorization: true,
      deepLinking: true,
    });
    expect(screen.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/");
    expect(screen.getByRole("link", { name: "Valuator" })).toHaveAttribute("href", "/");
  });
});
