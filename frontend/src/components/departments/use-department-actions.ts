import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useAssignDepartmentUser, useRemoveDepartmentUser, useUpdateDepartment } from '@/api/generated/departments/departments';
import type { Department, UpdateDepartment, UserSummary } from '@/api/generated/model';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notify';
import { invalidate } from '@/lib/query-invalidation';

/**
 * `PUT .../departments/{id}` takes `headId: null` to remove the head, but openapi.json declares
 * `headId` as a plain string, so the generated type cannot say null.
 */
type DepartmentChanges = Omit<UpdateDepartment, 'headId'> & { headId?: string | null };

/** The department changes, each refreshing what it affects and saying how it went. */
export function useDepartmentActions(enterpriseId: string) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const refresh = () => invalidate.departments(client, enterpriseId);
  // One failure shown at a time for the department changes: the next outcome replaces it.
  const failed = (error: unknown) => notify.failure(`departments:${enterpriseId}`, t('departments.toast.failed'), errorMessage(error, t));
  const done = (message: string) => notify.success(`departments:${enterpriseId}`, message);

  const update = useUpdateDepartment({ mutation: { onSettled: refresh } });
  const assign = useAssignDepartmentUser({ mutation: { onSettled: refresh } });
  const remove = useRemoveDepartmentUser({ mutation: { onSettled: refresh } });
  const name = (department: Department) => t(`departmentTypes.${department.type}`);

  const change = (department: Department, data: DepartmentChanges, success: string) =>
    update.mutateAsync({ id: enterpriseId, deptId: department.id, data: data as UpdateDepartment }).then(
      () => void done(success),
      (error: unknown) => {
        failed(error);
        throw error;
      },
    );

  return {
    pending: update.isPending || assign.isPending || remove.isPending,

    editDescription: (department: Department, description: string) =>
      change(department, { description }, t('departments.toast.descriptionSaved', { department: name(department) })),

    setHead: (department: Department, person: UserSummary) =>
      change(department, { headId: person.id }, t('departments.toast.headSet', { name: person.fullName, department: name(department) })),

    clearHead: (department: Department) =>
      change(department, { headId: null }, t('departments.toast.headCleared', { department: name(department) })).catch(() => {}),

    addMember: (department: Department, person: UserSummary) =>
      assign.mutateAsync({ id: enterpriseId, deptId: department.id, data: { userId: person.id } }).then(
        () => void done(t('departments.toast.memberAdded', { name: person.fullName, department: name(department) })),
        (error: unknown) => {
          failed(error);
          throw error;
        },
      ),

    removeMember: (department: Department, person: UserSummary) =>
      remove
        .mutateAsync({ id: enterpriseId, deptId: department.id, userId: person.id })
        .then(() => void done(t('departments.toast.memberRemoved', { name: person.fullName, department: name(department) })), failed),
  };
}
