import type { ButtonHTMLAttributes } from "react";

type Variant = "primary" | "secondary" | "danger" | "ghost";

const VARIANTS: Record<Variant, string> = {
  primary: "bg-indigo-600 text-white hover:bg-indigo-700 disabled:bg-indigo-300",
  secondary: "border border-neutral-300 bg-white text-neutral-800 hover:bg-neutral-100 disabled:text-neutral-400",
  danger: "bg-red-600 text-white hover:bg-red-700 disabled:bg-red-300",
  ghost: "text-neutral-700 hover:bg-neutral-100 disabled:text-neutral-400",
};

export const buttonClass = (variant: Variant = "secondary", size: "sm" | "md" = "md") =>
  `inline-flex items-center justify-center gap-1.5 rounded-md font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed ${
    size === "sm" ? "px-2.5 py-1 text-sm" : "px-3.5 py-2 text-sm"
  } ${VARIANTS[variant]}`;

export function Button({ variant = "secondary", size = "md", className = "", type = "button", ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; size?: "sm" | "md" }) {
  return <button type={type} className={`${buttonClass(variant, size)} ${className}`} {...rest} />;
}
