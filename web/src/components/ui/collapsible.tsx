import * as CollapsiblePrimitive from "@radix-ui/react-collapsible";

// Radix's Collapsible as is: the trigger gets aria-expanded/aria-controls, the content unmounts while closed.
export const Collapsible = CollapsiblePrimitive.Root;
export const CollapsibleTrigger = CollapsiblePrimitive.Trigger;
export const CollapsibleContent = CollapsiblePrimitive.Content;
