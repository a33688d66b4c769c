import { Alert, Button, Card, Menu, SimpleGrid, Stack, Table, Text, Timeline, Title } from '@mantine/core';
import { IconDownload, IconHistory, IconMessage } from '@tabler/icons-react';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { getExportReportUrl } from '@/api/generated/reports/reports';
import { ExportFormat, Lang, type ReportDetail } from '@/api/generated/model';
import { Chart } from '@/components/charts/LazyChart';
import { ReportStatusBadge } from '@/components/data/badges';
import { PageHeader } from '@/components/PageHeader';
import { reportBarOption } from '@/lib/chart-options';
import { downloadFile } from '@/lib/download';
import { errorMessage } from '@/lib/errors';
import { useFormat } from '@/lib/format';
import { notify } from '@/lib/notify';
import { STATUS_COLORS, currentReview } from '@/lib/report-rules';

type Props = {
  report: ReportDetail;
  back: { to: string; label: string };
  /** Buttons next to the download menu (edit, submit, delete). */
  actions?: ReactNode;
  /** The platform admin reads other enterprises' reports: it names the enterprise. */
  enterpriseId?: string;
  /** Below the header (the CEO's review panel). */
  children?: ReactNode;
};

/** A report as everyone reads it: header, review notes, content, table and chart, audit trail. */
export function ReportDetailView({ report, back, actions, enterpriseId, children }: Props) {
  const { t } = useTranslation();
  const format = useFormat();
  const chart = reportBarOption(report.data);
  // Only the review the report's status stands on: a resubmitted report shows none (its history keeps the old ones).
  const review = currentReview(report);

  const details = [
    { label: t('reports.fields.period'), value: t('reports.periodRange', { start: format.day(report.periodStart), end: format.day(report.periodEnd) }) },
    { label: t('reports.fields.author'), value: report.createdBy.fullName },
    { label: t('reports.fields.createdAt'), value: format.dateTime(report.createdAt) },
    { label: t('reports.fields.updatedAt'), value: format.dateTime(report.updatedAt) },
    { label: t('reports.fields.submittedAt'), value: format.dateTime(report.submittedAt) },
    {
      label: t('reports.fields.reviewedBy'),
      value: review?.by ? `${review.by.fullName} · ${format.dateTime(review.at)}` : '—',
    },
  ];

  return (
    <Stack gap="xl">
      <PageHeader
        title={report.title}
        badge={<ReportStatusBadge status={report.status} />}
        back={back}
        actions={
          <>
            {actions}
            <DownloadMenu reportId={report.id} enterpriseId={enterpriseId} />
          </>
        }
      />

      {review?.notes && (
        <Alert
          color={STATUS_COLORS[report.status]}
          variant={report.status === 'rejected' || report.status === 'approved' ? 'filled' : 'light'}
          icon={<IconMessage aria-hidden />}
          title={t('reports.detail.reviewNotes')}
          data-testid="review-notes"
        >
          <Text size="sm" style={{ whiteSpace: 'pre-line' }}>
            {review.notes}
          </Text>
        </Alert>
      )}

      {children}

      <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="report-overview">
        <Stack gap="md">
          <Title order={2} fz="lg" id="report-overview">
            {t('reports.detail.overview')}
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md" component="dl" m={0}>
            {details.map(({ label, value }) => (
              <div key={label}>
                <Text component="dt" size="sm" c="dimmed">
                  {label}
                </Text>
                <Text component="dd" m={0} fw={500}>
                  {value}
                </Text>
              </div>
            ))}
          </SimpleGrid>
          <Text style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}>{report.content}</Text>
        </Stack>
      </Card>

      {report.data && report.data.columns.length > 0 && (
        <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="report-data">
          <Stack gap="md">
            <Title order={2} fz="lg" id="report-data">
              {t('reports.detail.data')}
            </Title>
            {chart && <Chart option={chart} label={t('reports.detail.chartLabel', { title: report.title })} testId="report-chart" />}
            <Table.ScrollContainer minWidth={400}>
              <Table striped withTableBorder data-testid="report-table">
                <Table.Thead>
                  <Table.Tr>
                    {report.data.columns.map((column, index) => (
                      // A column of numbers: its header right-aligned, over its right-aligned figures.
                      <Table.Th key={index} scope="col" ta={report.data!.rows.some((row) => typeof row[index] === 'number') ? 'end' : undefined}>
                        {column}
                      </Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {report.data.rows.map((row, r) => (
                    <Table.Tr key={r}>
                      {report.data!.columns.map((_, c) => {
                        const cell = row[c];
                        return (
                          <Table.Td key={c} ta={typeof cell === 'number' ? 'end' : undefined}>
                            {typeof cell === 'number' ? format.number(cell) : cell === null || cell === undefined ? '' : String(cell)}
                          </Table.Td>
                        );
                      })}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Stack>
        </Card>
      )}

      <Card withBorder radius="md" padding="lg" component="section" aria-labelledby="report-history">
        <Stack gap="md">
          <Title order={2} fz="lg" id="report-history">
            {t('reports.detail.history')}
          </Title>
          <Timeline bulletSize={22} lineWidth={2} data-testid="report-history">
            {report.history.map((event) => (
              <Timeline.Item
                key={event.id}
                bullet={<IconHistory size={12} aria-hidden />}
                color={STATUS_COLORS[event.toStatus]}
                title={
                  event.fromStatus
                    ? t('reports.detail.transition', { from: t(`reportStatus.${event.fromStatus}`), to: t(`reportStatus.${event.toStatus}`) })
                    : t('reports.detail.created', { status: t(`reportStatus.${event.toStatus}`).toLocaleLowerCase() })
                }
              >
                <Text size="sm" c="dimmed">
                  {t('reports.detail.by', { name: event.actor?.fullName ?? t('reports.detail.deletedUser'), at: format.dateTime(event.createdAt) })}
                </Text>
                {event.notes && (
                  <Text size="sm" mt={4} style={{ whiteSpace: 'pre-line' }}>
                    {event.notes}
                  </Text>
                )}
              </Timeline.Item>
            ))}
          </Timeline>
        </Stack>
      </Card>
    </Stack>
  );
}

function DownloadMenu({ reportId, enterpriseId }: { reportId: string; enterpriseId?: string }) {
  const { t, i18n } = useTranslation();
  const [busy, setBusy] = useState(false);
  const download = async (format: ExportFormat) => {
    setBusy(true);
    try {
      // The file speaks the app's language, which may not be the browser's.
      const lang = i18n.language.startsWith('fr') ? Lang.fr : Lang.en;
      await downloadFile(getExportReportUrl(reportId, { format, enterpriseId, lang }), `report.${format}`);
    } catch (error) {
      notify.failure(`report.download:${reportId}`, t('reports.download.failed'), errorMessage(error, t));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default" leftSection={<IconDownload size={16} aria-hidden />} loading={busy}>
          {t('reports.download.action')}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {Object.values(ExportFormat).map((format) => (
          <Menu.Item key={format} onClick={() => void download(format)}>
            {t(`reports.download.${format}`)}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
