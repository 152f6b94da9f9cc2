import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiJson, apiRequest } from "@/lib/api";
import type { ApiKey, CreateApiKeyRequest } from "@/lib/types";

// The API Keys calls (working-screens spec, section 7; api/openapi.yaml, tag "API Keys"):
// GET /api/api-keys answers an array of ApiKey, newest first, each with the full key for the copy button;
// POST /api/api-keys answers 201 with the new ApiKey (400 names the bad fields in `fields`);
// DELETE /api/api-keys/{id} answers 204, and the key stops working at once.

export const API_KEYS_PATH = "/api/api-keys";

/** The list's query key: the default query function reads it as the URL. */
export const apiKeysQueryKey = [API_KEYS_PATH] as const;

export function useApiKeys() {
  return useQuery<ApiKey[]>({ queryKey: apiKeysQueryKey });
}

export function createApiKey(body: CreateApiKeyRequest): Promise<ApiKey> {
  return apiJson<ApiKey>("POST", API_KEYS_PATH, body);
}

export async function deleteApiKey(id: number): Promise<void> {
  await apiRequest("DELETE", `${API_KEYS_PATH}/${id}`);
}

export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createApiKey,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeysQueryKey }),
  });
}

export function useDeleteApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteApiKey,
    onSuccess: async (_, id) => {
      // The key is gone on the server: drop its row at once, then read the list again.
      queryClient.setQueryData<ApiKey[]>(apiKeysQueryKey, (keys) => keys?.filter((k) => k.id !== id));
      await queryClient.invalidateQueries({ queryKey: apiKeysQueryKey });
    },
  });
}

