import { expect, it } from "vitest";
import { colorName } from "./image-work.mjs";

it.each([
  [{ r: 220, g: 20, b: 30 }, "red"],
  [{ r: 250, g: 140, b: 20 }, "orange"],
  [{ r: 240, g: 220, b: 40 }, "yellow"],
  [{ r: 30, g: 160, b: 60 }, "green"],
  [{ r: 30, g: 80, b: 200 }, "blue"],
  [{ r: 120, g: 40, b: 180 }, "purple"],
  [{ r: 240, g: 100, b: 180 }, "pink"],
  [{ r: 110, g: 60, b: 20 }, "brown"],
  [{ r: 5, g: 5, b: 5 }, "black"],
  [{ r: 250, g: 250, b: 250 }, "white"],
  [{ r: 128, g: 128, b: 128 }, "gray"],
])("%o is %s", (rgb, name) => expect(colorName(rgb)).toBe(name));
