import { describe, expect, it } from "vitest";
import { StrictMode, useRef, useState } from "react";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "./alert-dialog";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogTitle } from "./dialog";

// The one dialog pattern (issue 26): whatever opens it (a button that only sets state, a Radix trigger, a deep link)
// and however it closes (Escape, the X, Cancel, Done, the end of an action), focus goes back to what opened it, or,
// when that is gone, to a fallback near it; focus stays inside while it is open; its title names it and its
// description describes it.

function StateDialog({ returnFocus = false, removeOpenerOnDone = false }: { returnFocus?: boolean; removeOpenerOnDone?: boolean }) {
  const [open, setOpen] = useState(false);
  const [openerShown, setOpenerShown] = useState(true);
  const fallback = useRef<HTMLHeadingElement>(null);
  return (
    <main id="main-content">
      <h1>Page heading</h1>
      <h2 ref={fallback} tabIndex={-1}>
        Section heading
      </h2>
      {openerShown ? (
        <button type="button" onClick={() => setOpen(true)}>
          Open
        </button>
      ) : null}
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogContent returnFocusTo={returnFocus ? fallback : undefined}>
          <DialogTitle>Example dialog</DialogTitle>
          <DialogDescription>What the dialog is for.</DialogDescription>
          <input aria-label="A field" />
          <DialogClose>Cancel</DialogClose>
          <button
            type="button"
            onClick={() => {
              if (removeOpenerOnDone) setOpenerShown(false);
              setOpen(false);
            }}
          >
            Done
          </button>
        </DialogContent>
      </Dialog>
    </main>
  );
}

const opener = () => screen.getByRole("button", { name: "Open" });

async function openDialog(user: ReturnType<typeof userEvent.setup>) {
  await user.click(opener());
  return screen.findByRole("dialog", { name: "Example dialog" });
}

describe("DialogContent opened from state, without a trigger", () => {
  it("is named by its title, described by its description, and takes focus", async () => {
    const user = userEvent.setup();
    render(<StateDialog />);
    const dialog = await openDialog(user);
    expect(dialog).toHaveAccessibleName("Example dialog");
    expect(dialog).toHaveAccessibleDescription("What the dialog is for.");
    expect(dialog).toHaveAttribute("aria-labelledby");
    expect(dialog).toHaveAttribute("aria-describedby");
    expect(within(dialog).getByLabelText("A field")).toHaveFocus();
  });

  it("keeps focus inside while open, forwards and backwards", async () => {
    const user = userEvent.setup();
    render(<StateDialog />);
    const dialog = await openDialog(user);
    for (let i = 0; i < 6; i++) {
      await user.tab();
      expect(dialog).toContainElement(document.activeElement as HTMLElement);
    }
    for (let i = 0; i < 6; i++) {
      await user.tab({ shift: true });
      expect(dialog).toContainElement(document.activeElement as HTMLElement);
    }
  });

  it.each([
    ["Escape", async (user: ReturnType<typeof userEvent.setup>) => user.keyboard("{Escape}")],
    ["the X", async (user: ReturnType<typeof userEvent.setup>, d: HTMLElement) => user.click(within(d).getByRole("button", { name: "Close" }))],
    ["Cancel", async (user: ReturnType<typeof userEvent.setup>, d: HTMLElement) => user.click(within(d).getByRole("button", { name: "Cancel" }))],
    ["Done (the dialog closing itself after its action)", async (user: ReturnType<typeof userEvent.setup>, d: HTMLElement) => user.click(within(d).getByRole("button", { name: "Done" }))],
  ])("gives focus back to the button that opened it on %s", async (_, close) => {
    const user = userEvent.setup();
    render(<StateDialog />);
    const dialog = await openDialog(user);
    await close(user, dialog);
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(opener()).toHaveFocus());
  });

  it("gives focus back by keyboard too: Enter opens, Escape closes, focus is on the button again", async () => {
    const user = userEvent.setup();
    render(<StateDialog />);
    opener().focus();
    await user.keyboard("{Enter}");
    await screen.findByRole("dialog", { name: "Example dialog" });
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(opener()).toHaveFocus());
  });

  it("sends focus to returnFocusTo when the action removed the button that opened it", async () => {
    const user = userEvent.setup();
    render(<StateDialog returnFocus removeOpenerOnDone />);
    const dialog = await openDialog(user);
    await user.click(within(dialog).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(screen.queryByRole("button", { name: "Open" })).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole("heading", { name: "Section heading" })).toHaveFocus());
  });

  it("sends focus to the page's main heading when the opener is gone and there is no returnFocusTo", async () => {
    const user = userEvent.setup();
    render(<StateDialog removeOpenerOnDone />);
    const dialog = await openDialog(user);
    await user.click(within(dialog).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    const heading = screen.getByRole("heading", { level: 1, name: "Page heading" });
    await waitFor(() => expect(heading).toHaveFocus());
    // Focusable from script only: never a tab stop.
    expect(heading).toHaveAttribute("tabindex", "-1");
  });

  it("takes the clicked button as the opener when the browser did not focus it (Safari)", async () => {
    render(<StateDialog />);
    // A click that leaves focus on the body, as Safari's does on a button.
    expect(document.body).toHaveFocus();
    fireEvent.click(opener());
    await screen.findByRole("dialog", { name: "Example dialog" });
    fireEvent.keyDown(document.activeElement!, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(opener()).toHaveFocus());
  });

  it("works the same under StrictMode, whose rehearsed unmount does not count as a close", async () => {
    const user = userEvent.setup();
    render(
      <StrictMode>
        <StateDialog />
      </StrictMode>,
    );
    const dialog = await openDialog(user);
    // The rehearsal's late close event must not have taken focus out of the open dialog.
    await act(() => new Promise((r) => setTimeout(r, 10)));
    expect(dialog).toContainElement(document.activeElement as HTMLElement);
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(opener()).toHaveFocus());
  });
});

describe("DialogContent whose opener goes a moment after the dialog closes", () => {
  function LaterRemoval() {
    const [open, setOpen] = useState(false);
    const [rows, setRows] = useState(["a", "b"]);
    return (
      <main id="main-content">
        <h1>Items</h1>
        <ul>
          {rows.map((r) => (
            <li key={r}>
              <button type="button" onClick={() => setOpen(true)}>{`Delete ${r}`}</button>
            </li>
          ))}
        </ul>
        <Dialog open={open} onOpenChange={setOpen}>
          <DialogContent>
            <DialogTitle>Delete?</DialogTitle>
            <DialogDescription>It cannot be undone.</DialogDescription>
            <button
              type="button"
              onClick={() => {
                setOpen(false);
                // The list is read again a little later, without the deleted row.
                setTimeout(() => setRows(["b"]), 50);
              }}
            >
              Delete
            </button>
          </DialogContent>
        </Dialog>
      </main>
    );
  }

  it("moves focus on from the removed row's button to the page's heading, not to the body", async () => {
    const user = userEvent.setup();
    render(<LaterRemoval />);
    await user.click(screen.getByRole("button", { name: "Delete a" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete?" });
    await user.click(within(dialog).getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(screen.queryByRole("button", { name: "Delete a" })).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getByRole("heading", { name: "Items" })).toHaveFocus());
  });
});

describe("AlertDialogContent", () => {
  function Confirm({ withTrigger }: { withTrigger: boolean }) {
    const [open, setOpen] = useState(false);
    return (
      <main>
        <h1>Settings</h1>
        <AlertDialog open={open} onOpenChange={setOpen}>
          {withTrigger ? (
            <AlertDialogTrigger>Delete account</AlertDialogTrigger>
          ) : (
            <button type="button" onClick={() => setOpen(true)}>
              Delete account
            </button>
          )}
          <AlertDialogContent>
            <AlertDialogTitle>Delete your account?</AlertDialogTitle>
            <AlertDialogDescription>This cannot be undone.</AlertDialogDescription>
            <AlertDialogCancel>Cancel</AlertDialogCancel>
            <button type="button">Delete</button>
          </AlertDialogContent>
        </AlertDialog>
      </main>
    );
  }

  it.each([
    ["opened from state", false],
    ["opened by its trigger", true],
  ])("%s: is named and described, opens on Cancel, traps focus and gives it back on Cancel and Escape", async (_, withTrigger) => {
    const user = userEvent.setup();
    render(<Confirm withTrigger={withTrigger} />);
    const button = screen.getByRole("button", { name: "Delete account" });
    for (const close of ["Cancel", "Escape"]) {
      await user.click(button);
      const dialog = await screen.findByRole("alertdialog", { name: "Delete your account?" });
      expect(dialog).toHaveAccessibleDescription("This cannot be undone.");
      expect(within(dialog).getByRole("button", { name: "Cancel" })).toHaveFocus();
      await user.tab();
      await user.tab();
      expect(dialog).toContainElement(document.activeElement as HTMLElement);
      if (close === "Escape") await user.keyboard("{Escape}");
      else await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
      await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
      await waitFor(() => expect(button).toHaveFocus());
    }
  });
});
