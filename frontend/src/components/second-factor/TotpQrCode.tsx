import { Center, Loader, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

const SIZE = 200;

/**
 * The QR code of an authenticator's `otpauth://` address, for the app to scan. The QR library
 * loads only when one is shown (it stays out of the sign-in page's bundle), and draws an SVG (no
 * canvas needed).
 */
export function TotpQrCode({ otpauthUrl }: { otpauthUrl: string }) {
  const { t } = useTranslation();
  const [image, setImage] = useState<{ url: string; source: string } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    import('qrcode')
      .then((qrcode) => qrcode.toString(otpauthUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, width: SIZE }))
      .then((svg) => {
        if (live) setImage({ url: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`, source: otpauthUrl });
      })
      .catch(() => {
        if (live) setFailed(otpauthUrl);
      });
    return () => {
      live = false;
    };
  }, [otpauthUrl]);

  if (failed === otpauthUrl) {
    return (
      <Text size="sm" c="dimmed">
        {t('twoStep.qrFailed')}
      </Text>
    );
  }
  if (!image || image.source !== otpauthUrl) {
    return (
      <Center w={SIZE} h={SIZE}>
        <Loader size="sm" role="status" aria-label={t('twoStep.qrLoading')} />
      </Center>
    );
  }
  return (
    <img
      src={image.url}
      width={SIZE}
      height={SIZE}
      alt={t('twoStep.qrAlt')}
      data-testid="totp-qr"
      style={{ display: 'block', background: 'white', borderRadius: 4 }}
    />
  );
}
