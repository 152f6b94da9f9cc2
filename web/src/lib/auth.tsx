import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { useNavigate } from "react-router";
import { useQueryClient } from "@tanstack/react-query";
import { toast } from "@/components/ui/use-toast";
import { ApiError, apiJson, apiRequest, getToken, setToken, setUnauthorizedHandler } from "@/lib/api";
import type { AuthResponse, LoginRequest, RegisterRequest, User } from "@/lib/types";

/** How long the toast saying why a sign-up got no welcome credits stays up (it must outlast the dashboard's load). */
export const NO_WELCOME_TOAST_MS = 20_000;

export const PROFILE_PATH = "/api/user/profile";

export interface AuthContextValue {
  /** The signed-in user, or null when signed out (or while the session is still being checked). */
  user: User | null;
  /** True while the stored token is being checked at start-up. */
  isLoading: boolean;
  /** Signs in; throws the ApiError of a failed call so the screen can show it. */
  login: (email: string, password: string) => Promise<void>;
  /** Creates the account and signs it in; throws the ApiError of a failed call. */
  register: (fullName: string, email: string, password: string) => Promise<void>;
  /** Revokes the session on the server (best effort) and signs out here, then goes to /login. */
  logout: () => Promise<void>;
  /** Re-reads the profile (after a change of credits, profile or preferences); failures are only logged. */
  refreshUser: () => Promise<void>;
  /** Forgets the session in this browser without calling the server or navigating (the account was closed). */
  clearSession: () => void;
}

const AuthContext = createContext<AuthContextValue | null>(null);

/**
 * Holds the session (product-and-account spec, section 4): the token lives in localStorage under "token", the user
 * in memory. Must sit inside the router and the QueryClientProvider.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [user, setUser] = useState<User | null>(null);
  // Loading only when there is a token to check, so a signed-out visitor never sees a spinner.
  const [isLoading, setIsLoading] = useState<boolean>(() => getToken() !== null);

  const clearSession = useCallback(() => {
    setToken(null);
    setUser(null);
    // Another account may sign in next in this tab: no cached data of this one may leak into it.
    queryClient.clear();
  }, [queryClient]);

  // Start-up: a stored token is checked by reading the profile; a failure means the session is gone.
  useEffect(() => {
    const token = getToken();
    if (token === null) {
      setIsLoading(false);
      return;
    }
    let cancelled = false;
    // Only act if the token is still the one checked: the visitor may have signed in afresh meanwhile.
    const current = () => !cancelled && getToken() === token;
    apiJson<User>("GET", PROFILE_PATH)
      .then((profile) => {
        if (current()) setUser(profile);
      })
      .catch(() => {
        if (current()) {
          setToken(null);
          setUser(null);
        }
      })
      .finally(() => {
        if (!cancelled) setIsLoading(false);
      });
    return () => {
      cancelled = true;
    };
  }, []);

  // A 401 on any call made with our token means the session expired or was revoked elsewhere (a password change
  // on another device, say): sign out here too. The sign-in guard then sends the visitor to /login.
  useEffect(() => {
    setUnauthorizedHandler(clearSession);
    return () => setUnauthorizedHandler(null);
  }, [clearSession]);

  const startSession = useCallback(
    (auth: AuthResponse) => {
      queryClient.clear();
      setToken(auth.token);
      setUser(auth.user);
      setIsLoading(false);
    },
    [queryClient],
  );

  const login = useCallback(
    async (email: string, password: string) => {
      const body: LoginRequest = { email, password };
      const auth = await apiJson<AuthResponse>("POST", "/api/auth/login", body);
      startSession(auth);
      navigate("/dashboard");
    },
    [navigate, startSession],
  );

  const register = useCallback(
    async (fullName: string, email: string, password: string) => {
      const body: RegisterRequest = { email, password, fullName };
      const auth = await apiJson<AuthResponse>("POST", "/api/auth/register", body);
      startSession(auth);
      if (auth.welcome && auth.welcome.credits === 0) {
        // The welcome credits go to a mailbox once; the person must hear why they got none, and still read it
        // once the dashboard has loaded behind the toast.
        toast({
          title: "No welcome credits",
          description: auth.welcome.message ?? "This mailbox already received its welcome credits.",
          duration: NO_WELCOME_TOAST_MS,
        });
      } else {
        toast({ title: "Success", description: "Account created successfully" });
      }
      navigate("/dashboard");
    },
    [navigate, startSession],
  );

  const logout = useCallback(async () => {
    // The request reads the token before its first await, so it still carries the bearer header although the
    // session is cleared right below. Signing out here must not wait for, or depend on, the server.
    const revoke = getToken() !== null ? apiRequest("POST", "/api/auth/logout").catch(() => undefined) : null;
    clearSession();
    navigate("/login");
    await revoke;
  }, [clearSession, navigate]);

  const refreshUser = useCallback(async () => {
    const token = getToken();
    if (token === null) return;
    try {
      const profile = await apiJson<User>("GET", PROFILE_PATH);
      // The visitor may have signed out (or in as someone else) while the profile was on its way.
      if (getToken() === token) setUser(profile);
    } catch (err) {
      // A 401 has already signed the visitor out (the API helper's handler); anything else is worth a log line.
      if (!(err instanceof ApiError && err.status === 401)) console.error("Failed to refresh the user profile", err);
    }
  }, []);

  const value = useMemo<AuthContextValue>(
    () => ({ user, isLoading, login, register, logout, refreshUser, clearSession }),
    [user, isLoading, login, register, logout, refreshUser, clearSession],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

/** The signed-in user where a session may or may not be provided (the public pages' frame): null when signed out. */
export function useOptionalUser(): User | null {
  return useContext(AuthContext)?.user ?? null;
}

export function useAuth(): AuthContextValue {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error("useAuth must be used within an AuthProvider");
  return ctx;
}
