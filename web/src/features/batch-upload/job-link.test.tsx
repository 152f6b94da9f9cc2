import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes } from "react-router";
import { dismissToasts, makeUser, mockFetch, renderWithProviders } from "@/test/utils";
import { BatchUploadPage } from "./batch-upload-page";
import { makeJob } from "./test-fixtures";

// The link of a batch result email, /batch-upload?job=<id>, opens that job's details.

afterEach(() => {
  vi.unstubAllGlobals();
  dismissToasts();
});

function renderAt(route: string) {
  localStorage.setItem("token", "tok-1");
  mockFetch({
    "GET /api/user/profile": { body: makeUser({ plan: "basic", credits: 500 }) },
    "GET /api/jobs": { body: [makeJob({ id: 7, fileName: "homes.csv" }), makeJob({ id: 8, fileName: "other.csv" })] },
  });
  renderWithProviders(
    <Routes>
      <Route path="/batch-upload" element={<BatchUploadPage />} />
    </Routes>,
    { route },
  );
}

describe("a link to one job", () => {
  it("opens the job's details and drops the parameter", async () => {
    renderAt("/batch-upload?job=7");
    const dialog = await screen.findByTestId("job-details");
    expect(within(dialog).getAllByText(/homes\.csv/).length).toBeGreaterThan(0);
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent(/^\/batch-upload$/));
  });

  it("opens nothing for a job that is not in the list", async () => {
    renderAt("/batch-upload?job=99");
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent(/^\/batch-upload$/));
    expect(screen.queryByTestId("job-details")).not.toBeInTheDocument();
  });
});
