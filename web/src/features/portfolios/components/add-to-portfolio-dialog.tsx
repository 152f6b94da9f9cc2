import { useEffect, useState, type FormEvent } from "react";
import { Link } from "react-router";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PendingButton } from "@/components/ui/pending-button";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/use-toast";
import { toastInsufficientCredits } from "@/components/insufficient-credits";
import { ApiError, errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import {
  HOME_COST,
  useAddHomes,
  useCreatePortfolio,
  usePortfolios,
  type HomeInput,
  type PortfolioRowResult,
} from "../api/portfolios-api";
import { creditsText, homesText } from "../portfolios-helpers";

const ADD_FAILED = "Could not add the home to the portfolio";
/** The choice of the select that makes a new portfolio rather than adding to one. */
const NEW = "new";

interface AddToPortfolioDialogProps {
  open: boolean;
  onClose: () => void;
  /** The home as the lookup was asked for it (with the facts given for a home not on record). */
  home: HomeInput;
  /** Its address as the lookup formatted it, for the dialog's words. */
  formattedAddress: string;
}

/**
 * Adds a looked-up home to one of the account's portfolios, or to a new one named here (Property Lookup's result,
 * "Add to Portfolio"). The home is valued again as a portfolio's homes are, 1 credit, and every month after. A home
 * the portfolio already holds, or one the engine cannot value, is said in the dialog (not charged); a 402 says the
 * balance and the way to Billing.
 */
export function AddToPortfolioDialog({ open, onClose, home, formattedAddress }: AddToPortfolioDialogProps) {
  const list = usePortfolios();
  const create = useCreatePortfolio();
  const add = useAddHomes();
  const pending = create.isPending || add.isPending;
  const { refreshUser } = useAuth();
  const [choice, setChoice] = useState<string>("");
  const [name, setName] = useState("");
  const [error, setError] = useState<{ field: "name" | "portfolio" | "home"; message: string } | null>(null);
  const portfolios = list.data?.data ?? [];

  useEffect(() => {
    if (open) {
      setError(null);
      setName("");
      setChoice("");
    }
  }, [open]);
  // The newest portfolio is offered first; an account without one makes a new one.
  const newest = portfolios[0];
  const selected = choice || (newest ? String(newest.id) : NEW);
  const isNew = selected === NEW;

  // (The mutations read the portfolios again themselves.)
  const added = (id: number, portfolioName: string) => {
    void refreshUser();
    toast({
      title: "Added to Portfolio",
      description: (
        <span>
          {formattedAddress} is in {portfolioName}, revalued every month.{" "}
          <Link to={`/portfolios/${id}`} className="font-semibold underline underline-offset-2">
            Open the portfolio
          </Link>
        </span>
      ),
    });
    onClose();
  };

  // A home not added (already listed, not valued) is the dialog's to say, at the home: nothing was charged.
  const refused = (r: PortfolioRowResult | undefined) => {
    const why = (r?.error ?? "The home was not added").replace(/\.?$/, ".");
    setError({ field: "home", message: `${why} Nothing was charged.` });
  };

  const failed = (err: unknown) => {
    if (toastInsufficientCredits(err, { costs: "adding a home costs", price: HOME_COST, fallback: ADD_FAILED, refreshUser })) return;
    if (err instanceof ApiError && err.status === 400 && err.body?.field === "name") {
      setError({ field: "name", message: err.body.error });
      document.getElementById("add-portfolio-name")?.focus();
      return;
    }
    if (err instanceof ApiError && err.status === 404) {
      // Deleted meanwhile (another tab): read the list again and ask once more.
      void list.refetch();
      setChoice("");
      setError({ field: "portfolio", message: "That portfolio no longer exists; choose another." });
      return;
    }
    toast({ variant: "destructive", title: ADD_FAILED, description: errorMessage(err, ADD_FAILED) });
  };

  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    if (pending) return;
    setError(null);
    if (isNew) {
      if (!name.trim()) {
        setError({ field: "name", message: "Portfolio name is required" });
        document.getElementById("add-portfolio-name")?.focus();
        return;
      }
      create.mutate(
        { name: name.trim(), alertThreshold: 5, properties: [home] },
        {
          onSuccess: (created) => (created.homeCount > 0 ? added(created.id, created.name) : refused(created.results[0])),
          onError: failed,
        },
      );
      return;
    }
    const target = portfolios.find((p) => String(p.id) === selected);
    if (!target) return;
    add.mutate(
      { id: target.id, homes: [home] },
      {
        onSuccess: (res) => (res.results[0]?.status === "added" ? added(target.id, target.name) : refused(res.results[0])),
        onError: failed,
      },
    );
  };

  return (
    <Dialog open={open} onOpenChange={(o) => !o && !pending && onClose()}>
      <DialogContent data-testid="add-to-portfolio-dialog">
        <DialogHeader>
          <DialogTitle>Add to Portfolio</DialogTitle>
          <DialogDescription>
            {formattedAddress} is valued again and added for {creditsText(HOME_COST)}, then revalued every month, 1 credit a
            month.
          </DialogDescription>
        </DialogHeader>
        {list.isPending ? (
          <div className="flex justify-center py-6">
            <Spinner label="Loading your portfolios" />
          </div>
        ) : list.isError ? (
          <p role="alert" className="text-sm font-medium text-destructive">
            {errorMessage(list.error, "Could not load your portfolios")}
          </p>
        ) : (
          <form noValidate onSubmit={submit} className="space-y-4" aria-label="Add to portfolio">
            {portfolios.length > 0 ? (
              <Field id="add-portfolio-choice" label="Portfolio" error={error?.field === "portfolio" ? error.message : undefined}>
                <Select value={selected} onValueChange={setChoice}>
                  <SelectTrigger id="add-portfolio-choice" aria-label="Portfolio">
                    <SelectValue />
                  </SelectTrigger>
                  <SelectContent>
                    {portfolios.map((p) => (
                      <SelectItem key={p.id} value={String(p.id)}>
                        {`${p.name} (${homesText(p.homeCount)})`}
                      </SelectItem>
                    ))}
                    <SelectItem value={NEW}>A new portfolio…</SelectItem>
                  </SelectContent>
                </Select>
              </Field>
            ) : null}
            {isNew ? (
              <Field
                id="add-portfolio-name"
                label="New portfolio's name"
                error={error?.field === "name" ? error.message : undefined}
                hint="Alerts when a home moves more than 5% in a month"
              >
                <Input maxLength={100} value={name} onChange={(e) => setName(e.target.value)} {...fieldA11y("add-portfolio-name", error?.field === "name" ? error.message : undefined, true)} />
              </Field>
            ) : null}
            {error?.field === "home" ? (
              <p role="alert" data-testid="add-to-portfolio-refused" className="text-sm font-medium text-destructive">
                {error.message}
              </p>
            ) : null}
            <DialogFooter>
              <Button type="button" variant="outline" onClick={onClose} disabled={pending}>
                Cancel
              </Button>
              <PendingButton type="submit" pending={pending}>
                {pending ? "Adding..." : `Add (${creditsText(HOME_COST)})`}
              </PendingButton>
            </DialogFooter>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
