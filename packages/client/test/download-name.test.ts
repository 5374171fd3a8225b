import { describe, expect, it } from "vitest";
import { fileNameOf } from "../src/cli/download-command";

describe("the file a download is written to without -o", () => {
  it("is the title's last part, never a path out of the current folder", () => {
    expect(fileNameOf("hero.png", "tok")).toBe("hero.png");
    expect(fileNameOf("../../.bashrc", "tok")).toBe(".bashrc");
    expect(fileNameOf("/etc/passwd", "tok")).toBe("passwd");
    expect(fileNameOf("..\\..\\evil.exe", "tok")).toBe("evil.exe");
  });

  it("is the asset token when the title names no file", () => {
    for (const title of ["", ".", "..", "/", "a/.."]) expect(fileNameOf(title, "tok"), JSON.stringify(title)).toBe("tok");
  });
});
