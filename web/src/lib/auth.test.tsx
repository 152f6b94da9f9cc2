import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { apiJson } from "@/lib/api";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders } from "@/test/utils";
import { useAuth } from "@/lib/auth";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  dismissToasts();
});

/** Shows the session and offers its actions as buttons. */
function SessionProbe() {
  const auth = useAuth();
  const swallow = (p: Promise<void>) => void p.catch(() => undefined);
  return (
    <div>
      <span data-testid="loading">{String(auth.isLoading)}</span>
      <span data-testid="who">{auth.user ? `${auth.user.fullName} <${auth.user.email}>` : "nobody"}</span>
      <button onClick={() => swallow(auth.login("jane@example.com", "secret-password"))}>login</button>
      <button onClick={() => swallow(auth.register("Jane Doe", "jane@example.com", "secret-password"))}>
        register
      </button>
      <button onClick={() => swallow(auth.logout())}>logout</button>
      <button onClick={() => swallow(auth.refreshUser())}>refresh</button>
      <button onClick={() => swallow(apiJson("GET", "/api/api-keys").then(() => undefined))}>other call</button>
    </div>
  );
}

function renderSession(route = "/somewhere") {
  return renderWithProviders(
    <Routes>
      <Route path="*" element={<SessionProbe />} />
    </Routes>,
    { route },
  );
}

describe("AuthProvider start-up", () => {
  it("reads the profile with the stored token and is loading meanwhile", async () => {
    localStorage.setItem("token", "tok-1");
    let answer!: (r: { status: number; body: unknown }) => void;
    const { requests } = mockFetch({
      "GET /api/user/profile": () => new Promise((resolve) => (answer = resolve)),
    });
    renderSession();

    expect(screen.getByTestId("loading")).toHaveTextContent("true");
    expect(screen.getByTestId("who")).toHaveTextContent("nobody");
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]!.headers.Authorization).toBe("Bearer tok-1");

    answer({ status: 200, body: makeUser() });
    await waitFor(() => expect(screen.getByTestId("who")).toHaveTextContent("Jane Doe <jane@example.com>"));
    expect(screen.getByTestId("loading")).toHaveTextContent("false");
    expect(localStorage.getItem("token")).toBe("tok-1");
  });

  it("clears the token and signs out when the profile cannot be read", async () => {
    localStorage.setItem("token", "stale");
    mockFetch({ "GET /api/user/profile": { status: 500, body: errorBody("Internal error", { code: "internal" }) } });
    renderSession();

    await waitFor(() => expect(screen.getByTestId("loading")).toHaveTextContent("false"));
    expect(screen.getByTestId("who")).toHaveTextContent("nobody");
    expect(localStorage.getItem("token")).toBeNull();
  });

  it("asks nothing and is not loading without a token", async () => {
    const { fetchMock } = mockFetch({});
    renderSession();
    expect(screen.getByTestId("loading")).toHaveTextContent("false");
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe("AuthProvider actions", () => {
  it("login posts the credentials, stores the token, sets the user and goes to /dashboard", async () => {
    const { requests } = mockFetch({
      "POST /api/auth/login": { status: 200, body: { token: "new-token", user: makeUser() } },
    });
    renderSession("/login");
    await userEvent.click(screen.getByRole("button", { name: "login" }));

    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent("/dashboard"));
    expect(requests[0]).toMatchObject({
      method: "POST",
      url: "/api/auth/login",
      body: { email: "jane@example.com", password: "secret-password" },
    });
    expect(localStorage.getItem("token")).toBe("new-token");
    expect(screen.getByTestId("who")).toHaveTextContent("Jane Doe");
  });

  it("a failed login stores nothing and stays put", async () => {
    mockFetch({ "POST /api/auth/login": { status: 401, body: errorBody("Invalid email or password") } });
    renderSession("/login");
    await userEvent.click(screen.getByRole("button", { name: "login" }));
    await waitFor(() => expect(fetch).toHaveBeenCalled());
    expect(localStorage.getItem("token")).toBeNull();
    expect(screen.getByTestId("location")).toHaveTextContent("/login");
  });

  it("register posts email, password and fullName, then signs in with a success toast", async () => {
    const { requests } = mockFetch({
      "POST /api/auth/register": { status: 201, body: { token: "reg-token", user: makeUser() } },
    });
    renderSession("/register");
    await userEvent.click(screen.getByRole("button", { name: "register" }));

    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent("/dashboard"));
    expect(requests[0]!.body).toEqual({ email: "jane@example.com", password: "secret-password", fullName: "Jane Doe" });
    expect(localStorage.getItem("token")).toBe("reg-token");
    expect(await screen.findByText("Success")).toBeInTheDocument();
    expect(screen.getByText("Account created successfully")).toBeInTheDocument();
  });

  it("logout revokes the session on the server with the token and signs out here", async () => {
    localStorage.setItem("token", "tok-1");
    const { requests } = mockFetch({
      "GET /api/user/profile": { body: makeUser() },
      "POST /api/auth/logout": { status: 204 },
    });
    renderSession("/settings");
    await waitFor(() => expect(screen.getByTestId("who")).toHaveTextContent("Jane Doe"));

    await userEvent.click(screen.getByRole("button", { name: "logout" }));
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent("/login"));
    const logout = requests.find((r) => r.url === "/api/auth/logout");
    expect(logout?.method).toBe("POST");
    expect(logout?.headers.Authorization).toBe("Bearer tok-1");
    expect(localStorage.getItem("token")).toBeNull();
    expect(screen.getByTestId("who")).toHaveTextContent("nobody");
  });

  it.each([
    ["a server error", { status: 500, body: errorBody("Internal error") }],
    ["an unreachable server", "network-error" as const],
  ])("logout still signs out locally after %s", async (_name, reply) => {
    localStorage.setItem("token", "tok-1");
    mockFetch({ "GET /api/user/profile": { body: makeUser() }, "POST /api/auth/logout": reply });
    const { queryClient } = renderSession("/settings");
    queryClient.setQueryData(["/api/usage/stats"], { totalRequests: 3 });
    await waitFor(() => expect(screen.getByTestId("who")).toHaveTextContent("Jane Doe"));

    await userEvent.click(screen.getByRole("button", { name: "logout" }));
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent("/login"));
    expect(localStorage.getItem("token")).toBeNull();
    expect(screen.getByTestId("who")).toHaveTextContent("nobody");
    expect(queryClient.getQueryData(["/api/usage/stats"])).toBeUndefined();
  });

  it("refreshUser re-reads the profile, and on failure only logs and keeps the user", async () => {
    localStorage.setItem("token", "tok-1");
    let reads = 0;
    mockFetch({
      "GET /api/user/profile": () => {
        reads += 1;
        if (reads === 1) return { body: makeUser() };
        if (reads === 2) return { body: makeUser({ fullName: "Jane Renamed" }) };
        return { status: 500, body: errorBody("Internal error") };
      },
    });
    const consoleError = vi.spyOn(console, "error").mockImplementation(() => undefined);
    renderSession();
    await waitFor(() => expect(screen.getByTestId("who")).toHaveTextContent("Jane Doe"));

    await userEvent.click(screen.getByRole("button", { name: "refresh" }));
    await waitFor(() => expect(screen.getByTestId("who")).toHaveTextContent("Jane Renamed"));

    await userEvent.click(screen.getByRole("button", { name: "refresh" }));
    await waitFor(() => expect(consoleError).toHaveBeenCalled());
    expect(screen.getByTestId("who")).toHaveTextContent("Jane Renamed");
    expect(localStorage.getItem("token")).toBe("tok-1");
  });

  it("a 401 on any call made with the token signs the visitor out locally", async () => {
    localStorage.setItem("token", "tok-1");
    mockFetch({
      "GET /api/user/profile": { body: makeUser() },
      "GET /api/api-keys": { status: 401, body: errorBody("Not signed in", { code: "unauthorized" }) },
    });
    renderSession();
    await waitFor(() => expect(screen.getByTestId("who")).toHaveTextContent("Jane Doe"));

    await userEvent.click(screen.getByRole("button", { name: "other call" }));
    await waitFor(() => expect(screen.getByTestId("who")).toHaveTextContent("nobody"));
    expect(localStorage.getItem("token")).toBeNull();
  });
});

describe("useAuth", () => {
  it("throws outside its provider", () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    function Orphan() {
      useAuth();
      return null;
    }
    expect(() => render(<Orphan />)).toThrow("useAuth must be used within an AuthProvider");
  });
});
