import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Accordion, AccordionContent, AccordionItem, AccordionTrigger } from "./accordion";

function renderFaq() {
  return render(
    <Accordion type="multiple">
      {["One", "Two", "Three"].map((q) => (
        <AccordionItem key={q} value={q}>
          <AccordionTrigger>{q}?</AccordionTrigger>
          <AccordionContent>Answer {q}</AccordionContent>
        </AccordionItem>
      ))}
    </Accordion>,
  );
}

describe("Accordion", () => {
  it("shows an answer as a region named by its question when the question is pressed, and hides it again", async () => {
    const user = userEvent.setup();
    renderFaq();
    const one = screen.getByRole("button", { name: "One?" });
    expect(one.closest("h3")).not.toBeNull();
    expect(one).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByText("Answer One")).not.toBeInTheDocument();

    await user.click(one);
    expect(one).toHaveAttribute("aria-expanded", "true");
    const region = screen.getByRole("region", { name: "One?" });
    expect(region).toHaveTextContent("Answer One");
    expect(one).toHaveAttribute("aria-controls", region.id);

    await user.click(one);
    expect(one).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("region")).not.toBeInTheDocument();
  });

  it("keeps several answers open at once", async () => {
    const user = userEvent.setup();
    renderFaq();
    await user.click(screen.getByRole("button", { name: "One?" }));
    await user.click(screen.getByRole("button", { name: "Three?" }));
    expect(screen.getAllByRole("region").map((r) => r.textContent)).toEqual(["Answer One", "Answer Three"]);
  });

  it("opens from the keyboard and moves between questions with the arrow keys, Home and End", async () => {
    const user = userEvent.setup();
    renderFaq();
    const [one, two, three] = ["One?", "Two?", "Three?"].map((name) => screen.getByRole("button", { name }));
    await user.tab();
    expect(one).toHaveFocus();
    await user.keyboard("{Enter}");
    expect(one).toHaveAttribute("aria-expanded", "true");
    await user.keyboard("{ArrowDown}");
    expect(two).toHaveFocus();
    await user.keyboard(" ");
    expect(two).toHaveAttribute("aria-expanded", "true");
    await user.keyboard("{End}");
    expect(three).toHaveFocus();
    await user.keyboard("{ArrowDown}");
    expect(one).toHaveFocus();
    await user.keyboard("{ArrowUp}");
    expect(three).toHaveFocus();
    await user.keyboard("{Home}");
    expect(one).toHaveFocus();
  });
});
