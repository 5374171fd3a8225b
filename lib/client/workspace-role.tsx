"use client";

import { createContext, useContext, type ReactNode } from "react";
import { roleAllows, type EffectiveRole, type Operation } from "../auth/roles";

const RoleContext = createContext<EffectiveRole | null>(null);

/**
 * The signed-in person's role in the open workspace, as the workspace layout resolved it from the
 * database. Controls a role does not allow are hidden as a courtesy; the server refuses them anyway.
 */
export function WorkspaceRoleProvider({ role, children }: { role: EffectiveRole; children: ReactNode }) {
  return <RoleContext.Provider value={role}>{children}</RoleContext.Provider>;
}

/** The role in the open workspace (null outside one) and whether it allows an operation: read, write or manage. */
export function useWorkspaceRole(): { role: EffectiveRole | null; can: (operation: Operation) => boolean } {
  const role = useContext(RoleContext);
  return { role, can: (operation) => role !== null && roleAllows(role, operation) };
}
