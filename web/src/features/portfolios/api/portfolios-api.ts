import { useInfiniteQuery, useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, apiJson, apiRequest } from "@/lib/api";
import type { components } from "@/lib/api-types";

// The Portfolios calls of the dashboard (issue 40; api/openapi.yaml, tag Portfolios, the session twins of
// /api/v1/portfolios): GET /api/portfolios lists them (free); POST /api/portfolios creates one, each home valued and
// charged 1 credit (a home the engine cannot value is reported in `results`, not charged; a balance short of every
// valued home is the lookup's 402 and nothing is made); GET /api/portfolios/{id} is one with its homes, totals and
// value month by month (free); POST and DELETE /api/portfolios/{id}/properties add (charged as creating) and remove
// homes; DELETE /api/portfolios/{id} deletes it; GET /api/portfolios/{id}/alerts is the alerts it has sent, newest month
// first, a page at a time (free).

type Schemas = components["schemas"];
export type Portfolio = Schemas["Portfolio"];
export type PortfolioDetail = Schemas["PortfolioDetail"];
export type PortfolioHome = Schemas["PortfolioHome"];
export type PortfolioCreated = Schemas["PortfolioCreated"];
export type PortfolioRowResult = Schemas["PortfolioRowResult"];
export type PortfolioCreateRequest = Schemas["PortfolioCreateRequest"];
export type HomeInput = Schemas["PropertyLookupRequest"];
export type PortfolioList = Schemas["PortfolioList"];
export type PortfolioAlert = Schemas["PortfolioAlert"];
export type PortfolioAlertList = Schemas["PortfolioAlertList"];
type BatchResultsPage = Schemas["BatchResultsPage"];

/**
 * A spreadsheet read by Batch Upload's preview, sent to the Portfolios screen (router state) to become a portfolio:
 * the preview's uploadId and the confirmed column mapping, with the file's name and rows for the dialog's words.
 */
export interface SheetForPortfolio {
  uploadId: number;
  mapping: PortfolioCreateRequest["mapping"];
  fileName: string;
  /** null when not known (the page was reloaded). */
  rowCount: number | null;
}

export const PORTFOLIOS_PATH = "/api/portfolios";
/** What one home costs to add (and each month to revalue). */
export const HOME_COST = 1;
/** The most homes a portfolio page shows at once (the API's largest page). */
export const HOMES_LIMIT = 1000;

export function portfolioUrl(id: number, limit = HOMES_LIMIT): string {
  return `${PORTFOLIOS_PATH}/${id}?limit=${limit}`;
}

export const portfoliosKey = ["portfolios"] as const;
export function portfolioKey(id: number): readonly unknown[] {
  return ["portfolios", id];
}

/** The account's portfolios (the first 100, newest first; an account has at most 100). */
export function usePortfolios() {
  return useQuery({
    queryKey: portfoliosKey,
    queryFn: () => apiJson<PortfolioList>("GET", `${PORTFOLIOS_PATH}?limit=100`),
  });
}

/** One portfolio with its homes, totals and history. */
export function usePortfolio(id: number) {
  return useQuery({
    queryKey: portfolioKey(id),
    queryFn: () => apiJson<PortfolioDetail>("GET", portfolioUrl(id)),
    enabled: Number.isSafeInteger(id) && id > 0,
  });
}

/** Past alerts a page: a year of months. */
export const ALERTS_PAGE_SIZE = 12;

export function portfolioAlertsUrl(id: number, page: number): string {
  return `${PORTFOLIOS_PATH}/${id}/alerts?page=${page}&limit=${ALERTS_PAGE_SIZE}`;
}

/**
 * The alerts a portfolio has sent, newest month first, a year at a time; fetchNextPage reads the next older year
 * ('Show older alerts'). Under the portfolio's key, so that it is read again with the portfolio and dropped with it.
 */
export function usePortfolioAlerts(id: number) {
  return useInfiniteQuery({
    queryKey: [...portfolioKey(id), "alerts"],
    queryFn: ({ pageParam }) => apiJson<PortfolioAlertList>("GET", portfolioAlertsUrl(id, pageParam)),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.pagination.hasNextPage ? last.pagination.page + 1 : undefined),
  });
}

/**
 * The totals of each listed portfolio, for the list's value and month's change: each portfolio read with one home
 * (the totals cover them all). Free calls; the list shows a dash until each answers.
 */
export function usePortfolioTotals(ids: readonly number[]) {
  return useQueries({
    queries: ids.map((id) => ({
      queryKey: ["portfolios", id, "totals"],
      queryFn: () => apiJson<PortfolioDetail>("GET", portfolioUrl(id, 1)),
      staleTime: 30_000,
    })),
  });
}

function useInvalidatePortfolios() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: portfoliosKey });
}

export function useCreatePortfolio() {
  const invalidate = useInvalidatePortfolios();
  return useMutation({
    mutationFn: (body: PortfolioCreateRequest) => apiJson<PortfolioCreated>("POST", PORTFOLIOS_PATH, body),
    onSuccess: () => void invalidate(),
  });
}

/**
 * Adds homes to a portfolio (each valued and charged as creating). The portfolio is named at each call, not at the
 * hook: Add to Portfolio lets the user choose it in the dialog.
 */
export function useAddHomes() {
  const invalidate = useInvalidatePortfolios();
  return useMutation({
    mutationFn: ({ id, homes }: { id: number; homes: HomeInput[] }) =>
      apiJson<Schemas["PortfolioAddResult"]>("POST", `${PORTFOLIOS_PATH}/${id}/properties`, { properties: homes }),
    onSuccess: () => void invalidate(),
  });
}

/** Changes a portfolio's settings (PATCH, free); the answer replaces the cached portfolio's settings at once. */
export function useUpdatePortfolio(id: number) {
  const invalidate = useInvalidatePortfolios();
  return useMutation({
    mutationFn: (body: Schemas["PortfolioUpdateRequest"]) => apiJson<Portfolio>("PATCH", `${PORTFOLIOS_PATH}/${id}`, body),
    onSuccess: () => void invalidate(),
  });
}

export function useRemoveHomes(id: number) {
  const invalidate = useInvalidatePortfolios();
  return useMutation({
    mutationFn: (homeIds: number[]) =>
      apiJson<Schemas["PortfolioRemoved"]>("DELETE", `${PORTFOLIOS_PATH}/${id}/properties`, { homeIds }),
    onSuccess: () => void invalidate(),
  });
}

export function useDeletePortfolio() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) => {
      await apiRequest("DELETE", `${PORTFOLIOS_PATH}/${id}`);
    },
    onSuccess: (_v, id) => {
      queryClient.removeQueries({ queryKey: portfolioKey(id) });
      void queryClient.invalidateQueries({ queryKey: portfoliosKey });
    },
  });
}

/**
 * The addresses of a batch job's valued rows (GET /api/jobs/{id}/results?status=success, every page), each as the
 * one-line address the lookup accepts: the portfolio made from them values the same homes.
 */
export async function fetchJobHomes(jobId: number): Promise<HomeInput[]> {
  const homes: HomeInput[] = [];
  for (let page = 1; page <= 1000; page++) {
    const res = await apiJson<BatchResultsPage>("GET", `/api/jobs/${jobId}/results?page=${page}&limit=1000&status=success`);
    for (const r of res.data) {
      const address = (r.fullAddress || r.address).trim();
      if (address) homes.push({ address });
    }
    if (!res.pagination.hasNextPage) break;
  }
  return homes;
}

export function useJobHomes(jobId: number | null) {
  return useQuery({
    queryKey: ["portfolio-from-job", jobId],
    queryFn: () => fetchJobHomes(jobId!),
    enabled: jobId !== null,
    staleTime: Infinity,
    retry: false,
  });
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.status === 404;
}
